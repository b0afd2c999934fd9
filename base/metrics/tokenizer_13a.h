#pragma once
// sacreBLEU's default '13a' tokenizer: the tokenization of mteval-v13a.pl, used by WMT.
#include <string>

namespace fathom {

// Tokenizes one segment exactly as sacreBLEU 2.x's Tokenizer13a: drops "<skipped>", joins
// "-\n" line breaks, unescapes &quot; &amp; &lt; &gt; (in that order, one pass each), pads
// punctuation, splits '.' and ',' unless between digits, splits '-' after a digit, and joins
// the tokens with single spaces. Input is UTF-8; only ASCII characters are ever split off.
// Note: sacreBLEU's BLEU rstrip()s a segment *before* this; sentence_bleu_stats does that.
std::string tokenize_13a(const std::string& line);

}  // namespace fathom
