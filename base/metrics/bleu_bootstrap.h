#pragma once
// Paired bootstrap resampling of corpus BLEU (Koehn 2004), as sacreBLEU's --paired-bs runs it:
// the engine of base/metrics/paired_bootstrap.h (the draws, the shifted two-sided p-value, the
// percentile intervals), each draw scored as a corpus from its segments' n-gram statistics.
#include <cstdint>
#include <string>
#include <vector>

#include "base/metrics/bleu_segments.h"
#include "base/metrics/paired_bootstrap.h"
#include "base/metrics/seed_pooled_test.h"

namespace fathom {

// `baseline` and `system` translate the same `references`, line by line. `seed` fixes the
// draws (sacreBLEU's default seed is 12345).
PairedBootstrap paired_bootstrap_bleu(const std::vector<std::string>& baseline,
                                      const std::vector<std::string>& system,
                                      const std::vector<std::string>& references,
                                      int samples = 1000, uint64_t seed = 12345);

// The same test from the two systems' sentence statistics against the same references (built
// with one TokenizedSegments): a baseline tested against many systems -- a fork sweep's parent
// -- is read and counted once. std::invalid_argument for statistics of different lengths.
PairedBootstrap paired_bootstrap_bleu(const SegmentBleuStats& baseline,
                                      const SegmentBleuStats& system, int samples = 1000,
                                      uint64_t seed = 12345);

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

// A configuration's seeds against one run (base/metrics/seed_pooled_test.h): `baseline` and
// each seed's `systems[j]` translate the same `references`; the test set's error from `samples`
// draws of sentences, each draw scoring every seed and the baseline on the same sentences.
// std::invalid_argument with fewer than two seeds or a file of another length.
SeedPooledTest seed_pooled_bleu(const std::vector<std::string>& baseline,
                                const std::vector<std::vector<std::string>>& systems,
                                const std::vector<std::string>& references, int samples = 1000,
                                uint64_t seed = 12345);

// Two configurations over their seeds (base/metrics/seed_pooled_test.h, seed_arms_test): each
// run's hypotheses of arm `a` and of arm `b` (one run: a fixed arm), the same `samples` draws
// of sentences scoring every run. std::invalid_argument as seed_pooled_bleu.
SeedArmsTest seed_arms_bleu(const std::vector<std::vector<std::string>>& a,
                            const std::vector<std::vector<std::string>>& b,
                            const std::vector<std::string>& references, int samples = 1000,
                            uint64_t seed = 12345);

// Two configurations paired by seed (seed_paired_test): a[j] and b[j] are one seed's runs; the
// test set's error of each seed's difference from the same `samples` draws of sentences.
// std::invalid_argument with fewer than two pairs or a file of another length.
SeedArmsTest seed_paired_bleu(const std::vector<std::vector<std::string>>& a,
                              const std::vector<std::vector<std::string>>& b,
                              const std::vector<std::string>& references, int samples = 1000,
                              uint64_t seed = 12345);

}  // namespace fathom
