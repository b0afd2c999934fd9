#pragma once
// Python `str` whitespace semantics on UTF-8 text. sacreBLEU strips and splits segments with
// Python's str.rstrip() / str.split(), which treat Unicode spaces (NBSP, U+2009, U+3000, ...)
// and the ASCII separators 0x1C-0x1F as whitespace; matching BLEU token counts needs the same set.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace fathom {

// Byte length of the whitespace code point starting at s[i], or 0 if s[i] does not start one.
std::size_t py_space_length(std::string_view s, std::size_t i);

// str.rstrip(): drops trailing whitespace code points.
std::string_view py_rstrip(std::string_view s);

// str.split() with no separator: maximal runs of non-whitespace, in order.
std::vector<std::string_view> py_split(std::string_view s);

}  // namespace fathom
