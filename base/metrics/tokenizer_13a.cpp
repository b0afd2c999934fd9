#include "base/metrics/tokenizer_13a.h"

#include <algorithm>
#include <string_view>
#include <vector>

#include "base/metrics/py_text.h"

namespace fathom {

namespace {

// Python's str.replace: one left-to-right pass, replacements are not rescanned.
std::string replace_all(const std::string& s, std::string_view from, std::string_view to) {
  std::string out;
  out.reserve(s.size());
  std::size_t pos = 0;
  for (std::size_t hit; (hit = s.find(from, pos)) != std::string::npos; pos = hit + from.size()) {
    out.append(s, pos, hit - pos);
    out.append(to);
  }
  out.append(s, pos, std::string::npos);
  return out;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_period_or_comma(char c) { return c == '.' || c == ','; }

// The class [\{-\~\[-\` -\&\(-\+\:-\@\/] of mteval's first rule, i.e. the ASCII ranges
// { | } ~, [ \ ] ^ _ `, space ! " # $ % &, ( ) * +, : ; < = > ? @, and '/'.
bool is_padded_symbol(char c) {
  return (c >= '{' && c <= '~') || (c >= '[' && c <= '`') || (c >= ' ' && c <= '&') ||
         (c >= '(' && c <= '+') || (c >= ':' && c <= '@') || c == '/';
}

// Rule 1 -- ([\{-\~\[-\` -\&\(-\+\:-\@\/]) -> " \1 " -- on the line padded by one space each
// side, written to `out` (room for 3 n + 2); returns the length written.
size_t pad_symbols(std::string_view s, char* out) {
  char* w = out;
  *w++ = ' ';
  for (char c : s) {
    if (is_padded_symbol(c)) {
      w[0] = ' ';
      w[1] = c;
      w[2] = ' ';
      w += 3;
    } else {
      *w++ = c;
    }
  }
  *w++ = ' ';
  return static_cast<size_t>(w - out);
}

// re.sub of a two-character pattern ([first])([second]) by "\1<mid>\2<after>", with an
// optional space before \1: scans left to right and resumes after each match, as re.sub does;
// writes to `out` (room for 2 n: a match's two characters become four) and returns the length.
// Working on UTF-8 bytes gives the same result as Python's code points: every class here is
// ASCII or the negation of ASCII digits, a multi-byte character can only match as a
// "non-digit", and a match can only involve its last byte (before '.'/',') or its first
// (after '.'/','), whose remaining bytes can start no match.
template <class First, class Second>
size_t sub_pairs(std::string_view s, First first, Second second, bool space_before,
                 bool space_after, char* out) {
  char* w = out;
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    if (i + 1 < n && first(s[i]) && second(s[i + 1])) {
      if (space_before) *w++ = ' ';
      w[0] = s[i];
      w[1] = ' ';
      w[2] = s[i + 1];
      w += 3;
      if (space_after) *w++ = ' ';
      i += 2;
    } else {
      *w++ = s[i++];
    }
  }
  return static_cast<size_t>(w - out);
}

// py_space_length with ASCII decided here: all but a few characters of a segment.
size_t space_length(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) ? 1 : 0;
  return py_space_length(s, i);
}

// Python's ' '.join(s.split()): the words between runs of (Unicode) whitespace.
std::string joined_words(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    if (const size_t space = space_length(s, i)) {
      i += space;
      continue;
    }
    const size_t start = i;
    while (i < s.size() && space_length(s, i) == 0) ++i;
    if (!out.empty()) out += ' ';
    out.append(s, start, i - start);
  }
  return out;
}

}  // namespace

// Each pass writes into one of two buffers kept by the thread (no allocation a segment after
// the first few): the tokenizer runs over every hypothesis and reference a test scores.
std::string tokenize_13a(const std::string& line) {
  std::string unescaped;
  std::string_view s = line;
  // Every pattern below holds '<', '\n' or '&': a segment with none of them skips seven copies.
  // (A loop, not find_first_of, which calls memchr over the three for every character.)
  if (std::any_of(line.begin(), line.end(),
                  [](char c) { return c == '<' || c == '&' || c == '\n'; })) {
    unescaped = replace_all(line, "<skipped>", "");
    unescaped = replace_all(unescaped, "-\n", "");
    unescaped = replace_all(unescaped, "\n", " ");
    unescaped = replace_all(unescaped, "&quot;", "\"");
    unescaped = replace_all(unescaped, "&amp;", "&");
    unescaped = replace_all(unescaped, "&lt;", "<");
    unescaped = replace_all(unescaped, "&gt;", ">");
    s = unescaped;
  }
  thread_local std::vector<char> a, b;
  const auto room = [](std::vector<char>& buffer, size_t size) {
    if (buffer.size() < size) buffer.resize(size);
    return buffer.data();
  };
  size_t n = pad_symbols(s, room(a, 3 * s.size() + 2));
  const auto not_digit = [](char c) { return !is_digit(c); };
  const auto is_dash = [](char c) { return c == '-'; };
  // Rule 2: ([^0-9])([\.,]) -> "\1 \2 "  (period/comma unless preceded by a digit)
  n = sub_pairs({a.data(), n}, not_digit, is_period_or_comma, false, true, room(b, 2 * n));
  // Rule 3: ([\.,])([^0-9]) -> " \1 \2"  (period/comma unless followed by a digit)
  n = sub_pairs({b.data(), n}, is_period_or_comma, not_digit, true, false, room(a, 2 * n));
  // Rule 4: ([0-9])(-) -> "\1 \2 "  (dash preceded by a digit)
  n = sub_pairs({a.data(), n}, is_digit, is_dash, false, true, room(b, 2 * n));
  return joined_words({b.data(), n});
}

}  // namespace fathom
