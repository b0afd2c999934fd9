// The 13a tokenizer against its definition run literally: mteval-v13a's steps as sacreBLEU 2.x
// writes them -- str.replace of "<skipped>", "-\n", "\n" and the four entities, the line padded
// by a space each side, the four re.sub rules (here std::regex_replace, which like re.sub
// replaces non-overlapping matches left to right), then ' '.join(line.split()) -- on thousands
// of random segments dense in what the rules act on: digits beside periods, commas and dashes,
// every padded symbol, entities, line breaks, multi-byte characters and Unicode spaces.
#include <gtest/gtest.h>

#include <random>
#include <regex>
#include <string>
#include <vector>

#include "base/metrics/py_text.h"
#include "base/metrics/tokenizer_13a.h"

namespace test_tokenizer_13a {

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  std::string out;
  size_t at = 0;
  for (size_t hit; (hit = s.find(from, at)) != std::string::npos; at = hit + from.size())
    out += s.substr(at, hit - at) + to;
  return out + s.substr(at);
}

std::string by_the_definition(std::string line) {
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{{"<skipped>", ""},
                                                                                 {"-\n", ""},
                                                                                 {"\n", " "},
                                                                                 {"&quot;", "\""},
                                                                                 {"&amp;", "&"},
                                                                                 {"&lt;", "<"},
                                                                                 {"&gt;", ">"}})
    line = replaced(line, from, to);
  line = " " + line + " ";
  // ([\{-\~\[-\` -\&\(-\+\:-\@\/]) written with the ranges' codes.
  static const std::regex symbols(R"(([\x7B-\x7E\x5B-\x60\x20-\x26\x28-\x2B\x3A-\x40\x2F]))");
  static const std::regex before_point(R"(([^0-9])([\.,]))");
  static const std::regex after_point(R"(([\.,])([^0-9]))");
  static const std::regex dash(R"(([0-9])(-))");
  line = std::regex_replace(line, symbols, " $1 ");
  line = std::regex_replace(line, before_point, "$1 $2 ");
  line = std::regex_replace(line, after_point, " $1 $2");
  line = std::regex_replace(line, dash, "$1 $2 ");
  std::string out;
  for (std::string_view word : fathom::py_split(line))
    out += (out.empty() ? "" : " ") + std::string(word);
  return out;
}

TEST(Tokenizer13a, IsTheDefinitionOnRandomSegments) {
  const std::vector<std::string> pieces{
      "a",    "Zb",   "7",         "0",    ".",     ",",   "-",      " ",      "  ",
      "\t",   "\n",   "-\n",       "\"",   "$",     "%",   "/",      "_",      "{",
      "~",    "`",    "[",         "\\",   "@",     "&",   ";",      ":",      "<",
      ">",    "(",    "+",         "'",    "é",     "€",   "\u00a0", "&quot;", "&amp;",
      "&lt;", "&gt;", "<skipped>", "3.14", "1,000", "x.y", "U.S.",   "\u2009", "\x1c"};
  std::mt19937_64 rng(13);
  std::uniform_int_distribution<size_t> piece(0, pieces.size() - 1), length(0, 24);
  for (int trial = 0; trial < 3000; ++trial) {
    std::string line;
    for (size_t k = length(rng); k > 0; --k) line += pieces[piece(rng)];
    ASSERT_EQ(fathom::tokenize_13a(line), by_the_definition(line)) << "segment: [" << line << "]";
  }
}

}  // namespace test_tokenizer_13a
