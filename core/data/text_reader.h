#pragma once
// Reading corpora: one sentence per line, plain text or gzip (detected by the magic bytes
// 1f 8b, so a compressed file without a .gz suffix still works). Every problem is reported as
// a fathom::InputError that names the file, and the line where there is one.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/util/error.h"

namespace fathom {

// Throws InputError naming `path` unless it is a regular file: missing, a directory, or a
// FIFO, device or socket (which could be endless).
void check_text_file(const std::string& path);

// A corpus file read line by line (plain or gzip, by the magic bytes), holding one block of it
// at a time: what read_lines() returns, without the whole file in memory. Lines are as
// read_lines() gives them (a trailing '\r' stripped, a byte-order mark at the start dropped, a
// final newline adding no empty line) and checked the same way (InputError naming the file,
// and the 1-based line for invalid UTF-8 or a line over kMaxLineBytes; "file is empty" for
// zero bytes of text; a FIFO, device or socket refused before reading).
class LineReader {
 public:
  // A line longer than this is an error naming the file and line: no sentence or document is
  // that long, and a file without newlines (a binary, /dev/zero copied) must not take the
  // machine's memory.
  static constexpr std::size_t kMaxLineBytes = std::size_t{64} << 20;
  explicit LineReader(const std::string& path);
  // Standard input (`fathom translate` without --input), read and checked as a file is, gzip
  // too, and named "standard input" in errors; no text at all is no error here (the caller
  // says what it needed).
  struct StandardInput {};
  explicit LineReader(StandardInput);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;
  // The next line into `line`; false at the end of the file.
  bool next(std::string& line);
  std::size_t lines_read() const { return lines_; }
  const std::string& path() const { return path_; }

 private:
  bool fill();  // reads the next block; false at the end
  [[noreturn]] void too_long() const;
  std::string path_;
  void* gz_ = nullptr;  // gzFile: zlib reads plain files as they are
  std::string block_;
  std::size_t pos_ = 0;
  std::size_t lines_ = 0;
  std::uint64_t bytes_ = 0;
  bool at_start_ = true, ended_ = false;
  bool empty_is_error_ = true;
};

// `path` as given when absolute or when `config_dir` is empty, else relative to `config_dir`.
std::string resolve_data_path(const std::string& path, const std::string& config_dir);

// All lines of a text file. A trailing '\r' is stripped from each line (Windows files), a UTF-8
// byte-order mark at the start is dropped, and a final newline does not add an empty line.
// Throws InputError if the file is missing or unreadable, empty (zero bytes of text), a corrupt
// gzip stream, or has invalid UTF-8 (naming the 1-based line).
std::vector<std::string> read_lines(const std::string& path);

// A sentence-aligned corpus: source[i] translates to target[i].
struct ParallelText {
  std::vector<std::string> source, target;
  // Pairs where exactly one side is an empty line: allowed (some corpora have them) but counted,
  // so the loader can report them.
  std::size_t one_side_empty = 0;
};

// The error of two sides that do not align: "line count mismatch: ..." naming both files and
// both counts (InputError at the source file).
InputError line_count_mismatch(const std::string& source_path, std::size_t source_lines,
                               const std::string& target_path, std::size_t target_lines);

// Reads both sides with read_lines and checks that they have the same number of lines
// (InputError naming both files and both counts otherwise).
ParallelText read_parallel_text(const std::string& source_path, const std::string& target_path);

}  // namespace fathom
