#include "base/metrics/py_text.h"

namespace fathom {

namespace {
// Python's str.isspace() set (Unicode White_Space minus U+180E, plus 0x1C-0x1F).
bool is_py_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 ||
         c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
         c == 0x205F || c == 0x3000;
}
}  // namespace

std::size_t py_space_length(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  if (c < 0x80) return is_py_space(c) ? 1 : 0;
  // Only 2- and 3-byte sequences encode spaces; malformed sequences are never spaces.
  const auto cont = [&](std::size_t k) { return i + k < s.size() && (b(k) & 0xC0) == 0x80; };
  if ((c & 0xE0) == 0xC0 && cont(1)) {
    return is_py_space(((c & 0x1Fu) << 6) | (b(1) & 0x3Fu)) ? 2 : 0;
  }
  if ((c & 0xF0) == 0xE0 && cont(1) && cont(2)) {
    return is_py_space(((c & 0x0Fu) << 12) | ((b(1) & 0x3Fu) << 6) | (b(2) & 0x3Fu)) ? 3 : 0;
  }
  return 0;
}

std::string_view py_rstrip(std::string_view s) {
  std::size_t keep = 0;  // end of the last non-space code point seen so far
  for (std::size_t i = 0; i < s.size();) {
    if (std::size_t n = py_space_length(s, i)) {
      i += n;
    } else {
      ++i;
      keep = i;  // a non-space byte (continuation bytes extend the same code point)
    }
  }
  return s.substr(0, keep);
}

std::vector<std::string_view> py_split(std::string_view s) {
  std::vector<std::string_view> words;
  std::size_t start = std::string_view::npos;
  for (std::size_t i = 0; i < s.size();) {
    if (std::size_t n = py_space_length(s, i)) {
      if (start != std::string_view::npos) words.push_back(s.substr(start, i - start));
      start = std::string_view::npos;
      i += n;
    } else {
      if (start == std::string_view::npos) start = i;
      ++i;
    }
  }
  if (start != std::string_view::npos) words.push_back(s.substr(start));
  return words;
}

}  // namespace fathom
