#pragma once
// Corpus BLEU equal to sacreBLEU 2.x's default `corpus_bleu(hyps, [refs])`: 13a tokenizer,
// mixed case, 'exp' smoothing, n-grams up to 4, no effective order, one reference per segment.
// Torch-free so the GUI and the trainer's validation loop can both use it.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "base/metrics/tokenizer_13a.h"  // tokenize_13a, part of this API

namespace fathom {

// The sacreBLEU version whose behaviour (and signature string) this code reproduces.
inline constexpr const char* kSacreBleuVersion = "2.3.1";

// Sufficient statistics of BLEU; additive over segments, so corpus BLEU = f(sum of these).
struct BleuStats {
  std::array<int64_t, 4> matches{};  // clipped n-gram matches, n = 1..4
  std::array<int64_t, 4> totals{};   // hypothesis n-grams, n = 1..4
  int64_t hyp_len = 0;               // hypothesis tokens
  int64_t ref_len = 0;               // reference tokens

  BleuStats& operator+=(const BleuStats& other);
  bool operator==(const BleuStats& other) const;
};

struct BleuScore {
  double score = 0;                    // 0..100
  std::array<double, 4> precisions{};  // percent, after smoothing
  double bp = 1, ratio = 0;            // brevity penalty, hyp_len / ref_len
  int64_t hyp_len = 0, ref_len = 0;
  std::string signature;  // e.g. nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.3.1
  BleuStats stats;        // the statistics the score was computed from

  // sacreBLEU's score line without the signature, e.g.
  // "BLEU = 34.12 65.3/40.1/27.5/19.0 (BP = 0.982 ratio = 0.982 hyp_len = 12345 ref_len = 12567)"
  std::string format(int width = 2) const;
  // The part after the score: "65.3/40.1/... (BP = ... ref_len = ...)", sacreBLEU's verbose_score.
  std::string verbose() const;
};

// The signature of the configuration implemented here (single reference; eff:yes for
// sentence_bleu()).
std::string bleu_signature(bool effective_order = false);

// Statistics of one segment: both sides are rstrip()ped and 13a-tokenized first, as sacreBLEU does.
BleuStats sentence_bleu_stats(const std::string& hyp, const std::string& ref);

// Corpus BLEU of hyps[i] against refs[i]. Throws std::invalid_argument when the sizes differ
// or a reference is the empty string (sacreBLEU 2.x refuses empty references too).
// An empty corpus scores 0 (sacreBLEU itself raises on an empty list).
BleuScore corpus_bleu(const std::vector<std::string>& hyps, const std::vector<std::string>& refs);

// The score from (summed) statistics: brevity penalty, 'exp' smoothing, geometric mean. With
// `effective_order`, the mean is over the orders up to the highest the hypothesis has n-grams
// of (sacreBLEU's eff:yes), so a sentence shorter than 4 words is not scored 0 for that alone.
BleuScore bleu_from_stats(const BleuStats& stats, bool effective_order = false);

// One segment's BLEU as sacreBLEU 2.x's `sentence_bleu(hyp, [ref])` gives it: 13a, mixed case,
// 'exp' smoothing, effective order. For ranking sentences; a corpus is scored by corpus_bleu(),
// never by averaging these.
BleuScore sentence_bleu(const std::string& hyp, const std::string& ref);

}  // namespace fathom
