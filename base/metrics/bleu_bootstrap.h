#pragma once
// Paired bootstrap resampling of corpus BLEU (Koehn 2004, "Statistical significance tests for
// machine translation evaluation"), as sacreBLEU's --paired-bs runs it: the test set's
// segments are drawn with replacement `samples` times, the same draw for both systems, and
// each draw scored as a corpus. The p-value is two-sided: the share of draws whose signed
// difference d_i, shifted by the draws' mean difference (the null hypothesis: no difference),
// is at least as far from zero as the real one, |d_i - mean(d)| >= |delta|, plus one over
// draws plus one. The 95 % interval of a system's BLEU and of the difference are the 2.5th
// and 97.5th percentiles of the draws.
#include <cstdint>
#include <string>
#include <vector>

namespace fathom {

struct BootstrapBleu {
  double score = 0;  // corpus BLEU of the whole test set
  double mean = 0;   // mean over the draws
  double ci = 0;     // half the width of the 95 % percentile interval
};

struct PairedBootstrap {
  BootstrapBleu baseline, system;
  double difference = 0;                           // system - baseline, on the whole test set
  double difference_low = 0, difference_high = 0;  // its 95 % percentile interval
  double p = 1;                                    // two-sided, of "the two systems score the same"
  int samples = 0;                                 // draws
};

// `baseline` and `system` translate the same `references`, line by line. `seed` fixes the
// draws (sacreBLEU's default seed is 12345).
PairedBootstrap paired_bootstrap_bleu(const std::vector<std::string>& baseline,
                                      const std::vector<std::string>& system,
                                      const std::vector<std::string>& references,
                                      int samples = 1000, uint64_t seed = 12345);

// One seed's pair of systems: both translate the same references.
struct HypothesisPair {
  std::vector<std::string> baseline, system;
};

// The same test pooled over seeds: several (baseline, system) pairs -- one per seed -- of one
// test set. Each draw picks one list of segment indices and scores every pair's two systems on
// it, so the seeds' pairs are resampled together; the statistic is the mean over the pairs of
// the corpus BLEU (baseline, system, and system - baseline): the quantity Welch's test over
// seeds compares, with the test set's sampling error in place of the seeds'. With one pair it
// is paired_bootstrap_bleu. std::invalid_argument when a file's length differs from the
// references' or there is no pair.
PairedBootstrap pooled_paired_bootstrap_bleu(const std::vector<HypothesisPair>& pairs,
                                             const std::vector<std::string>& references,
                                             int samples = 1000, uint64_t seed = 12345);

}  // namespace fathom
