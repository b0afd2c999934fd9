#include "base/metrics/tokenizer_13a.h"

#include <string_view>

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

// re.sub of a two-character pattern ([first])([second]) by "\1<mid>\2<after>", with an
// optional space before \1: scans left to right and resumes after each match, as re.sub does.
// Working on UTF-8 bytes gives the same result as Python's code points: every class here is
// ASCII or the negation of ASCII digits, a multi-byte character can only match as a
// "non-digit", and a match can only involve its last byte (before '.'/',') or its first
// (after '.'/','), whose remaining bytes can start no match.
template <class First, class Second>
std::string sub_pairs(const std::string& s, First first, Second second, bool space_before,
                      bool space_after) {
  std::string out;
  out.reserve(s.size() + s.size() / 4);
  std::size_t i = 0;
  while (i < s.size()) {
    if (i + 1 < s.size() && first(s[i]) && second(s[i + 1])) {
      if (space_before) out += ' ';
      out += s[i];
      out += ' ';
      out += s[i + 1];
      if (space_after) out += ' ';
      i += 2;
    } else {
      out += s[i++];
    }
  }
  return out;
}

}  // namespace

std::string tokenize_13a(const std::string& line) {
  std::string s = replace_all(line, "<skipped>", "");
  s = replace_all(s, "-\n", "");
  s = replace_all(s, "\n", " ");
  s = replace_all(s, "&quot;", "\"");
  s = replace_all(s, "&amp;", "&");
  s = replace_all(s, "&lt;", "<");
  s = replace_all(s, "&gt;", ">");

  // Rule 1: pad every symbol of the class with spaces (the line is padded by one space too).
  std::string padded = " ";
  padded.reserve(s.size() * 2 + 2);
  for (char c : s) {
    if (is_padded_symbol(c)) {
      padded += ' ';
      padded += c;
      padded += ' ';
    } else {
      padded += c;
    }
  }
  padded += ' ';

  const auto not_digit = [](char c) { return !is_digit(c); };
  const auto is_dash = [](char c) { return c == '-'; };
  // Rule 2: ([^0-9])([\.,]) -> "\1 \2 "  (period/comma unless preceded by a digit)
  s = sub_pairs(padded, not_digit, is_period_or_comma, false, true);
  // Rule 3: ([\.,])([^0-9]) -> " \1 \2"  (period/comma unless followed by a digit)
  s = sub_pairs(s, is_period_or_comma, not_digit, true, false);
  // Rule 4: ([0-9])(-) -> "\1 \2 "  (dash preceded by a digit)
  s = sub_pairs(s, is_digit, is_dash, false, true);

  std::string out;
  out.reserve(s.size());
  for (std::string_view word : py_split(s)) {
    if (!out.empty()) out += ' ';
    out.append(word);
  }
  return out;
}

}  // namespace fathom
