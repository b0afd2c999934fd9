#pragma once
// Reading a corpus file as sacreBLEU does: UTF-8, one segment per '\n'-terminated line
// (only '\n' ends a line; '\r' stays in the segment), gzip or plain (base/util/file_bytes.h).
#include <string>
#include <vector>

namespace fathom {

// The file's lines without their '\n'. A final line without '\n' counts; an empty file has none.
// Throws InputError naming the file when it cannot be opened or decompressed, and naming the
// line when it is not valid UTF-8 (Python's decoder, and so sacreBLEU, refuses such input).
std::vector<std::string> read_text_lines(const std::string& path);

}  // namespace fathom
