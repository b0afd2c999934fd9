#pragma once
// Paired bootstrap resampling of corpus perplexity, exp(sum of a draw's negative
// log-likelihoods / sum of its target tokens): the engine of base/metrics/paired_bootstrap.h
// with each draw scored as a corpus from its segments' summed NLL and token counts -- what a
// language model (or a translation model's test perplexity) is judged by, where there are no
// translations to score. Perplexity per token compares only runs that cut the text into the
// same tokens: a segment counted with different tokens by the two systems is refused.
#include <cstdint>
#include <string>
#include <vector>

#include "base/metrics/paired_bootstrap.h"

namespace fathom {

// One test segment (a sentence's target, a language model's block): its summed negative
// log-likelihood in nats and its target tokens.
struct SegmentNll {
  double nll = 0;
  int64_t tokens = 0;
};

// exp(sum nll / sum tokens) of the segments; 0 without tokens.
double corpus_perplexity(const std::vector<SegmentNll>& segments);

// One seed's pair of systems, scored on the same segments.
struct NllPair {
  std::vector<SegmentNll> baseline, system;
};

// The statistic is the mean over the pairs of the corpus perplexity (baseline, system, and
// system - baseline: negative is better), the draws shared by every pair as
// pooled_paired_bootstrap_bleu shares them. std::invalid_argument, naming the pair and the
// segment, when a pair's lists differ in length from the first's, or a segment's tokens differ
// between a pair's systems (other tokenisations), or a segment has no tokens.
// SegmentOrder::serial draws circular blocks of neighbouring segments, as many as the longest
// that block_length.h chooses for the baseline's, the system's and the difference's NLL per
// segment (each the mean over the pairs): the verdict rests on the difference, and each
// system's interval on its own series, so none is left with blocks too short for it.
PairedBootstrap pooled_paired_bootstrap_perplexity(const std::vector<NllPair>& pairs,
                                                   int samples = 1000, uint64_t seed = 12345,
                                                   SegmentOrder order = SegmentOrder::independent);
PairedBootstrap paired_bootstrap_perplexity(const std::vector<SegmentNll>& baseline,
                                            const std::vector<SegmentNll>& system,
                                            int samples = 1000, uint64_t seed = 12345,
                                            SegmentOrder order = SegmentOrder::independent);

// The block length SegmentOrder::serial resamples `pairs` with.
size_t serial_block_length(const std::vector<NllPair>& pairs);

// The file a run keeps them in (test.nll, the `test_nll` artifact): a header line
// "nll<TAB>tokens", then one line a segment, in the split's order. The reader's errors name the
// file, the line and the field.
std::string segment_nll_text(const std::vector<SegmentNll>& segments);
std::vector<SegmentNll> read_segment_nll_file(const std::string& path);

}  // namespace fathom
