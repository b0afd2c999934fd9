#pragma once
// The paired bootstrap (Koehn 2004, "Statistical significance tests for machine translation
// evaluation") over any corpus score: the test set's segments are drawn with replacement
// `samples` times, the same draw for both systems, and each draw scored as a corpus. The
// p-value is two-sided: the share of draws whose signed difference d_i, shifted by the draws'
// mean difference (the null hypothesis: no difference), is at least as far from zero as the
// real one, |d_i - mean(d)| >= |delta|, plus one over draws plus one. The 95 % interval of a
// system's score and of the difference are the 2.5th and 97.5th percentiles of the draws.
// Corpus BLEU (bleu_bootstrap.h) and corpus perplexity (perplexity_bootstrap.h) score with it.
// Segments that are serially dependent (a text cut into blocks) are drawn in circular blocks of
// neighbours (Politis & Romano 1992; block_length.h chooses how many), which keeps the
// dependence within a block that single draws would break and so understate the spread.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <utility>
#include <vector>

namespace fathom {

struct BootstrapScore {
  double score = 0;  // the corpus score of the whole test set
  double mean = 0;   // mean over the draws
  double ci = 0;     // half the width of the 95 % percentile interval
};

struct PairedBootstrap {
  BootstrapScore baseline, system;
  double difference = 0;                           // system - baseline, on the whole test set
  double difference_low = 0, difference_high = 0;  // its 95 % percentile interval
  double p = 1;                                    // two-sided, of "the two systems score the same"
  int samples = 0;                                 // draws
  size_t block_length = 1;  // neighbouring segments drawn together (1: each drawn on its own)
};

// Whether the test set's neighbouring segments are independent (sentences, documents) or
// serially dependent (blocks cut from one running text).
enum class SegmentOrder { independent, serial };

// (baseline, system) corpus scores of one draw: the indices of the drawn segments, with
// repeats.
using PairedScorer = std::function<std::pair<double, double>(const std::vector<size_t>& drawn)>;

// `whole`: both systems' scores on the whole test set of `segments` segments. `seed` fixes the
// draws. `block_length` > 1: each draw is made of blocks of that many consecutive segments,
// each block starting anywhere and wrapping past the last segment to the first, cut to
// `segments` in all (the circular block bootstrap). std::invalid_argument without segments or
// draws.
PairedBootstrap paired_bootstrap(size_t segments, std::pair<double, double> whole,
                                 const PairedScorer& score, int samples, uint64_t seed,
                                 size_t block_length = 1);

// The indices of one draw of `segments` segments (for block_length 1, segments drawn singly).
void draw_segments(std::vector<size_t>& drawn, size_t block_length, std::mt19937_64& random);

}  // namespace fathom
