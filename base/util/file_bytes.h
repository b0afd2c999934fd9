#pragma once
// A whole file's bytes, gunzipped when it is gzip (detected by the magic bytes 1f 8b, so a
// compressed file without a .gz suffix works and a plain one named .gz is read as it is).
// The BLEU reader (base/metrics/text_lines.h) reads through it; the corpus reader
// (core/data/text_reader.h: LineReader) streams the same zlib reading line by line, so the two
// agree on what a file holds without holding a corpus whole.
#include <optional>
#include <string>

namespace fathom {

// Throws InputError naming the file when it cannot be opened or read, or its gzip stream is
// corrupt or truncated.
std::string read_file_bytes(const std::string& path);

// A small file's text as it is (no gzip), none when it cannot be opened: the kernel's files
// under /proc and /sys, which a process reads about itself.
std::optional<std::string> read_small_file(const std::string& path);

}  // namespace fathom
