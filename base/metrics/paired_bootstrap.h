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
  size_t block_length = 1;        // neighbouring segments drawn together (1: each drawn on its own)
  size_t score_block_length = 1;  // those of the draws each system's interval is from
  // The difference's test and interval are studentised (percentile-t) rather than shifted
  // percentiles: blocks with an influence series (below).
  bool studentised = false;
  double difference_se = 0;  // studentised: the difference's standard error, from the data
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
// draws, or with an influence series of another length.
//
// `influence` (with blocks): each segment's first-order share of the difference, psi_k, so
// that a draw's difference is about the whole set's plus the mean of its psi less theirs. The
// test is then studentised (Goetze & Kuensch 1996): each draw's t* = (d* - d) / se*, se* the
// flat-top standard error of its drawn psi in drawn order (the original's window); the real t = d /
// se with se^2 the flat-top long-run variance of psi over n (block_length.h); p = the share of |t*|
// >= |t|; the interval d - q* se between t*'s 2.5th and 97.5th percentiles. A block bootstrap's own
// spread is biased low by O(1/b) (Lahiri 2003) and rejected about twice alpha in the
// shifted-percentile test; the flat-top se is nearly unbiased and t* carries the variability of
// estimating it.
//
// `threads` > 1: draws are scored on up to that many threads at once, so `score` must be safe to
// call concurrently (read shared data only). The draws are the same serial sequence, so every
// figure is the same to the last bit on any number of threads (base/metrics/parallel_draws.h).
PairedBootstrap paired_bootstrap(size_t segments, std::pair<double, double> whole,
                                 const PairedScorer& score, int samples, uint64_t seed,
                                 size_t block_length = 1, const std::vector<double>& influence = {},
                                 int threads = 1);

// The indices of one draw of `segments` segments (for block_length 1, segments drawn singly).
void draw_segments(std::vector<size_t>& drawn, size_t block_length, std::mt19937_64& random);

}  // namespace fathom
