#include "core/data/text_reader.h"

#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string_view>

#include "base/util/error.h"
#include "base/util/utf8.h"

namespace fathom {

void check_text_file(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status)) throw InputError(path, 0, "", "file not found");
  if (std::filesystem::is_directory(status))
    throw InputError(path, 0, "", "is a directory, expected a text file");
  // /dev/zero never ends and a FIFO without a writer never answers (issue 57 item 5).
  if (!std::filesystem::is_regular_file(status))
    throw InputError(path, 0, "",
                     "not a regular file (a FIFO, device or socket could be endless): give a "
                     "file of text");
}

LineReader::LineReader(const std::string& path) : path_(path) {
  check_text_file(path);
  gz_ = gzopen(path.c_str(), "rb");
  if (!gz_) throw InputError(path, 0, "", std::string("cannot open file: ") + std::strerror(errno));
  gzbuffer(static_cast<gzFile>(gz_), 1 << 17);  // fewer system calls on big corpora
}

LineReader::LineReader(StandardInput) : path_("standard input"), empty_is_error_(false) {
  const int fd = dup(STDIN_FILENO);  // gzclose closes its descriptor; standard input stays open
  gz_ = fd < 0 ? nullptr : gzdopen(fd, "rb");
  if (!gz_) {
    if (fd >= 0) close(fd);
    throw InputError(path_, 0, "", std::string("cannot read: ") + std::strerror(errno));
  }
  gzbuffer(static_cast<gzFile>(gz_), 1 << 17);
}

LineReader::~LineReader() {
  if (gz_) gzclose(static_cast<gzFile>(gz_));
}

bool LineReader::fill() {
  auto* gz = static_cast<gzFile>(gz_);
  block_.resize(1 << 20);
  const int n = gzread(gz, block_.data(), static_cast<unsigned>(block_.size()));
  if (n < 0) {
    int code = 0;
    const std::string why = gzerror(gz, &code);
    throw InputError(path_, 0, "", "corrupt gzip data: " + why);
  }
  block_.resize(static_cast<std::size_t>(n));
  pos_ = 0;
  if (n > 0) {
    bytes_ += static_cast<std::uint64_t>(n);
    return true;
  }
  // A truncated stream reads as a clean end of file; only gzerror tells (Z_BUF_ERROR).
  int code = Z_OK;
  gzerror(gz, &code);
  if (code == Z_BUF_ERROR)
    throw InputError(path_, 0, "", "truncated gzip file (unexpected end of compressed data)");
  if (bytes_ == 0 && empty_is_error_) throw InputError(path_, 0, "", "file is empty");
  return false;
}

bool LineReader::next(std::string& line) {
  line.clear();
  if (ended_) return false;
  bool any = false;  // whether this line has a byte or its newline
  for (;;) {
    if (pos_ >= block_.size() && !fill()) {
      ended_ = true;
      if (!any) return false;  // a final newline adds no empty line
      break;
    }
    if (at_start_) {  // the first block is whole (gzread fills it unless the file ends)
      at_start_ = false;
      if (block_.compare(0, 3, "\xEF\xBB\xBF") == 0) pos_ = 3;  // a BOM is not content
      if (pos_ >= block_.size()) continue;
    }
    const char* begin = block_.data() + pos_;
    const void* nl = std::memchr(begin, '\n', block_.size() - pos_);
    if (!nl) {
      line.append(begin, block_.size() - pos_);
      pos_ = block_.size();
      any = true;
      if (line.size() > kMaxLineBytes) too_long();  // before the next block, not after the file
      continue;
    }
    const auto n = static_cast<std::size_t>(static_cast<const char*>(nl) - begin);
    line.append(begin, n);
    pos_ += n + 1;
    break;
  }
  if (line.size() > kMaxLineBytes) too_long();
  if (!line.empty() && line.back() == '\r') line.pop_back();
  ++lines_;
  const std::size_t bad = find_invalid_utf8(line);
  if (bad != std::string_view::npos) {
    // A file named .gz that holds no gzip stream is read as it is: say so, or its bytes read
    // as a puzzling "invalid UTF-8" (issue 57 item 12).
    const bool named_gz = path_.size() > 3 && path_.compare(path_.size() - 3, 3, ".gz") == 0;
    const bool not_gzip = named_gz && gzdirect(static_cast<gzFile>(gz_)) == 1;
    throw InputError(path_, static_cast<int>(lines_), "",
                     "invalid UTF-8 at byte " + std::to_string(bad + 1) + " of the line" +
                         (not_gzip ? " (the file is named .gz but holds no gzip data; it was "
                                     "read as plain text)"
                                   : ""));
  }
  return true;
}

void LineReader::too_long() const {
  throw InputError(path_, static_cast<int>(lines_ + 1), "",
                   "a line longer than " + std::to_string(kMaxLineBytes >> 20) +
                       " MiB: not one sentence or document of text (a binary file, or no "
                       "newlines?)");
}

std::vector<std::string> read_lines(const std::string& path) {
  LineReader reader(path);
  std::vector<std::string> lines;
  for (std::string line; reader.next(line);) lines.push_back(line);
  return lines;
}

InputError line_count_mismatch(const std::string& source_path, std::size_t source_lines,
                               const std::string& target_path, std::size_t target_lines) {
  return InputError(source_path, 0, "",
                    "line count mismatch: " + source_path + " has " + std::to_string(source_lines) +
                        " lines but " + target_path + " has " + std::to_string(target_lines) +
                        "; source and target must be aligned line by line");
}

ParallelText read_parallel_text(const std::string& source_path, const std::string& target_path) {
  ParallelText text;
  text.source = read_lines(source_path);
  text.target = read_lines(target_path);
  if (text.source.size() != text.target.size())
    throw line_count_mismatch(source_path, text.source.size(), target_path, text.target.size());
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
