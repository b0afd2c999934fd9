#include "core/data/text_reader.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string_view>

#include "core/data/utf8.h"
#include "core/util/error.h"

namespace fathom {
namespace {

std::string read_plain(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", std::string("cannot open file: ") + std::strerror(errno));
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw InputError(path, 0, "", "read error");
  return data;
}

std::string read_gzip(const std::string& path) {
  gzFile gz = gzopen(path.c_str(), "rb");
  if (!gz) throw InputError(path, 0, "", "cannot open gzip file");
  gzbuffer(gz, 1 << 17);  // larger buffer: fewer syscalls on big corpora
  std::string data;
  char buf[1 << 16];
  for (;;) {
    const int n = gzread(gz, buf, sizeof buf);
    if (n < 0) {
      int code = 0;
      std::string why = gzerror(gz, &code);
      gzclose(gz);
      throw InputError(path, 0, "", "corrupt gzip data: " + why);
    }
    if (n == 0) break;
    data.append(buf, static_cast<std::size_t>(n));
  }
  // A truncated stream reads as a clean end of file; only gzerror tells (Z_BUF_ERROR).
  int code = Z_OK;
  gzerror(gz, &code);
  gzclose(gz);
  if (code == Z_BUF_ERROR)
    throw InputError(path, 0, "", "truncated gzip file (unexpected end of compressed data)");
  return data;
}

bool has_gzip_magic(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char magic[2] = {0, 0};
  in.read(reinterpret_cast<char*>(magic), 2);
  return in.gcount() == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

}  // namespace

std::vector<std::string> read_lines(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw InputError(path, 0, "", "file not found");
  if (std::filesystem::is_directory(path, ec))
    throw InputError(path, 0, "", "is a directory, expected a text file");
  const std::string data = has_gzip_magic(path) ? read_gzip(path) : read_plain(path);
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

}  // namespace fathom
