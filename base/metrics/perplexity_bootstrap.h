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
#include "base/metrics/seed_pooled_test.h"

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
// SegmentOrder::serial draws circular blocks of neighbouring segments, as many as
// block_length.h chooses from the data (serial_block_lengths): the verdict -- the difference's
// test and interval, studentised by its influence with blocks -- from draws in the difference's
// own blocks, each system's interval from draws in the systems' (a second pass where those
// differ). PairedBootstrap::block_length is the test's, score_block_length the intervals'.
PairedBootstrap pooled_paired_bootstrap_perplexity(const std::vector<NllPair>& pairs,
                                                   int samples = 1000, uint64_t seed = 12345,
                                                   SegmentOrder order = SegmentOrder::independent);
PairedBootstrap paired_bootstrap_perplexity(const std::vector<SegmentNll>& baseline,
                                            const std::vector<SegmentNll>& system,
                                            int samples = 1000, uint64_t seed = 12345,
                                            SegmentOrder order = SegmentOrder::independent);

// The block lengths SegmentOrder::serial resamples `pairs` with: the difference's test by the
// dependence of its influence (below), each system's interval by the longer of the two
// systems' NLL series (each the mean over the pairs).
struct SerialBlocks {
  size_t difference = 1, scores = 1;
};
SerialBlocks serial_block_lengths(const std::vector<NllPair>& pairs);

// Each segment's first-order share of the difference in mean corpus perplexity (system -
// baseline, averaged over the pairs), psi_k = [P_s (nll_s,k - tokens_k r_s) - P_b (nll_b,k -
// tokens_k r_b)] / (T/n) with r = N/T a pair's nats per token: what SegmentOrder::serial
// studentises the test with (paired_bootstrap.h).
std::vector<double> perplexity_difference_influence(const std::vector<NllPair>& pairs);

// A configuration's seeds against one run (base/metrics/seed_pooled_test.h) on test
// perplexity: the test set's error from each seed's influence (above) against `baseline`, over
// the flat-top lag window their mean's influence chooses where `order` is serial (0 where
// independent). std::invalid_argument with fewer than two seeds or, as for the pairs above, a
// list of another length or a segment counted in other tokens.
SeedPooledTest seed_pooled_perplexity(const std::vector<SegmentNll>& baseline,
                                      const std::vector<std::vector<SegmentNll>>& systems,
                                      SegmentOrder order = SegmentOrder::independent);

// Two configurations over their seeds on test perplexity (seed_arms_test): the test set's
// error from each run's influence on its own corpus perplexity, P (nll_k - tokens_k r) / (T/n),
// over the flat-top window the arms' mean difference chooses where `order` is serial.
SeedArmsTest seed_arms_perplexity(const std::vector<std::vector<SegmentNll>>& a,
                                  const std::vector<std::vector<SegmentNll>>& b,
                                  SegmentOrder order = SegmentOrder::independent);

// Two configurations paired by seed (seed_paired_test) on test perplexity: a[j] and b[j] one
// seed's runs; each seed's difference's influence a_j's minus b_j's, over the flat-top window
// their mean chooses where `order` is serial.
SeedArmsTest seed_paired_perplexity(const std::vector<std::vector<SegmentNll>>& a,
                                    const std::vector<std::vector<SegmentNll>>& b,
                                    SegmentOrder order = SegmentOrder::independent);

// The file a run keeps them in (test.nll, the `test_nll` artifact): a header line
// "nll<TAB>tokens", then one line a segment, in the split's order. The reader's errors name the
// file, the line and the field.
std::string segment_nll_text(const std::vector<SegmentNll>& segments);
std::vector<SegmentNll> read_segment_nll_file(const std::string& path);

}  // namespace fathom
