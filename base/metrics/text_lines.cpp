#include "base/metrics/text_lines.h"

#include <string_view>

#include "base/util/error.h"
#include "base/util/file_bytes.h"
#include "base/util/utf8.h"

namespace fathom {

std::vector<std::string> read_text_lines(const std::string& path) {
  const std::string data = read_file_bytes(path);
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < data.size()) {
    std::size_t end = data.find('\n', start);
    if (end == std::string::npos) end = data.size();
    lines.emplace_back(data, start, end - start);
    if (find_invalid_utf8(lines.back()) != std::string_view::npos) {
      throw InputError(path, static_cast<int>(lines.size()), "", "not valid UTF-8");
    }
    start = end + 1;
  }
  return lines;
}

}  // namespace fathom
