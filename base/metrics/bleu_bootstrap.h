#pragma once
// Paired bootstrap resampling of corpus BLEU (Koehn 2004, "Statistical significance tests for
// machine translation evaluation"), as sacreBLEU's --paired-bs runs it: the test set's
// segments are drawn with replacement `samples` times, the same draw for both systems, and
// each draw scored as a corpus. The p-value is the share of draws whose difference, centred
// on the draws' mean difference (the null hypothesis), is at least the real difference; the
// 95 % interval of a system's BLEU is the 2.5th and 97.5th percentiles of its draws.
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
  double p = 1;     // of "the two systems score the same"
  int samples = 0;  // draws
};

// `baseline` and `system` translate the same `references`, line by line. `seed` fixes the
// draws (sacreBLEU's default seed is 12345).
PairedBootstrap paired_bootstrap_bleu(const std::vector<std::string>& baseline,
                                      const std::vector<std::string>& system,
                                      const std::vector<std::string>& references,
                                      int samples = 1000, uint64_t seed = 12345);

}  // namespace fathom
