#pragma once
// Reading corpora: one sentence per line, plain text or gzip (detected by the magic bytes
// 1f 8b, so a compressed file without a .gz suffix still works). Every problem is reported as
// a fathom::InputError that names the file, and the line where there is one.
#include <cstddef>
#include <string>
#include <vector>

namespace fathom {

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

// Reads both sides with read_lines and checks that they have the same number of lines
// (InputError naming both files and both counts otherwise).
ParallelText read_parallel_text(const std::string& source_path, const std::string& target_path);

}  // namespace fathom
