// Fuzz target: the BLEU tokenizer (13a) and corpus BLEU. The input is "hypotheses<TAB>
// references", each one segment per '\n'; segments are paired in order (base/metrics/
// bleu_corpus.cpp reads them from files). Invariants: the
// tokenizer never leaves a double space or an edge space, counts are consistent (matches <=
// totals), and the score is in [0, 100]; a hypothesis scored against itself is 100 when it
// has a 4-gram.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "base/metrics/bleu.h"
#include "base/metrics/tokenizer_13a.h"
#include "fuzz/fuzz_input.h"

namespace {

std::vector<std::string> segments(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1)
    out.push_back(text.substr(start, end - start));
  out.push_back(text.substr(start));
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fathom;
  const std::string input(reinterpret_cast<const char*>(data), size);
  const size_t tab = input.find('\t');
  std::vector<std::string> hyps = segments(input.substr(0, tab));
  std::vector<std::string> refs = tab == std::string::npos ? hyps : segments(input.substr(tab + 1));
  refs.resize(hyps.size());  // paired in order
  // corpus_bleu's precondition (the file reader turns an empty reference into an InputError
  // naming its line): a missing or empty reference is the hypothesis itself.
  for (size_t i = 0; i < refs.size(); ++i)
    if (refs[i].empty()) refs[i] = hyps[i].empty() ? std::string("x") : hyps[i];

  for (const auto& h : hyps) {
    const std::string t = tokenize_13a(h);
    FUZZ_CHECK(t.find("  ") == std::string::npos);
    FUZZ_CHECK(t.empty() || (t.front() != ' ' && t.back() != ' '));
  }
  fuzz::accept_input_errors([&] {
    const BleuScore score = corpus_bleu(hyps, refs);
    FUZZ_CHECK(std::isfinite(score.score) && score.score >= 0 && score.score <= 100 + 1e-9);
    std::vector<std::string> nonempty;  // references must not be empty
    for (const auto& h : hyps)
      if (!h.empty()) nonempty.push_back(h);
    BleuStats stats;
    for (const auto& h : nonempty) {
      const BleuStats s = sentence_bleu_stats(h, h);
      for (int n = 0; n < 4; ++n) {
        FUZZ_CHECK(s.matches[n] == s.totals[n]);  // a segment matches itself entirely
        stats.totals[n] += s.totals[n];
      }
    }
    const BleuScore self = corpus_bleu(nonempty, nonempty);
    if (stats.totals[3] > 0) FUZZ_CHECK(std::fabs(self.score - 100) < 1e-9);
  });
  return 0;
}
