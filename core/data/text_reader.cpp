#include "core/data/text_reader.h"

#include <filesystem>
#include <string_view>

#include "base/util/error.h"
#include "base/util/file_bytes.h"
#include "base/util/utf8.h"

namespace fathom {

std::vector<std::string> read_lines(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw InputError(path, 0, "", "file not found");
  if (std::filesystem::is_directory(path, ec))
    throw InputError(path, 0, "", "is a directory, expected a text file");
  const std::string data = read_file_bytes(path);
  if (data.empty()) throw InputError(path, 0, "", "file is empty");

  std::string_view text(data);
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // BOM is not content
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::size_t bad = find_invalid_utf8(line);
    if (bad != std::string_view::npos)
      throw InputError(path, static_cast<int>(lines.size() + 1), "",
                       "invalid UTF-8 at byte " + std::to_string(bad + 1) + " of the line");
    lines.emplace_back(line);
    start = end + 1;
  }
  return lines;
}

ParallelText read_parallel_text(const std::string& source_path, const std::string& target_path) {
  ParallelText text;
  text.source = read_lines(source_path);
  text.target = read_lines(target_path);
  if (text.source.size() != text.target.size())
    throw InputError(source_path, 0, "",
                     "line count mismatch: " + source_path + " has " +
                         std::to_string(text.source.size()) + " lines but " + target_path +
                         " has " + std::to_string(text.target.size()) +
                         "; source and target must be aligned line by line");
  for (std::size_t i = 0; i < text.source.size(); ++i)
    if (text.source[i].empty() != text.target[i].empty()) ++text.one_side_empty;
  return text;
}

std::string resolve_data_path(const std::string& path, const std::string& config_dir) {
  const std::filesystem::path p(path);
  if (p.is_absolute() || config_dir.empty()) return path;
  return (std::filesystem::path(config_dir) / p).lexically_normal().string();
}

}  // namespace fathom
