// The paired bootstrap pooled over seeds (base/metrics/bleu_bootstrap.h): with one pair it is
// the plain paired test; pairs repeated change nothing; on a three-segment corpus with two
// seeds' pairs, whose 27 equally likely resamples (the same segments for both pairs) can be
// enumerated, it converges to the exact p of the mean difference; mismatched files are named.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/metrics/bleu.h"
#include "base/metrics/bleu_bootstrap.h"

namespace test_pooled_bootstrap {
using fathom::HypothesisPair;

const std::vector<std::string> kRefs = {"the cat sat on the mat", "a dog ran in the park today",
                                        "it rained all day long here"};
// Seed 1's pair, and seed 2's (B worse on the first segment, better on the last).
const HypothesisPair kSeed1 = {
    {"the cat sat on a mat", "a dog ran in the park today", "it rained all night here"},
    {"the cat sat on the mat", "the dog ran to a park", "it rained all day long here"}};
const HypothesisPair kSeed2 = {
    {"the cat sat on the mat", "a dog ran in a park today", "it rained night here"},
    {"a cat sat on mat", "a dog ran in the park today", "it rained all day here"}};

TEST(PooledBootstrap, OnePairIsThePairedTestAndRepeatsChangeNothing) {
  const auto plain = fathom::paired_bootstrap_bleu(kSeed1.baseline, kSeed1.system, kRefs, 500, 9);
  const auto one = fathom::pooled_paired_bootstrap_bleu({kSeed1}, kRefs, 500, 9);
  const auto twice = fathom::pooled_paired_bootstrap_bleu({kSeed1, kSeed1}, kRefs, 500, 9);
  for (const auto& r : {one, twice}) {
    EXPECT_DOUBLE_EQ(r.difference, plain.difference);
    EXPECT_DOUBLE_EQ(r.p, plain.p);
    EXPECT_DOUBLE_EQ(r.difference_low, plain.difference_low);
    EXPECT_DOUBLE_EQ(r.difference_high, plain.difference_high);
  }
}

TEST(PooledBootstrap, ConvergesToTheEnumeratedPOfTheMeanDifference) {
  std::vector<fathom::BleuStats> stats[4];  // seed 1 A, B; seed 2 A, B
  const std::vector<std::string>* files[4] = {&kSeed1.baseline, &kSeed1.system, &kSeed2.baseline,
                                              &kSeed2.system};
  for (int f = 0; f < 4; ++f)
    for (int i = 0; i < 3; ++i)
      stats[f].push_back(fathom::sentence_bleu_stats((*files[f])[i], kRefs[i]));
  std::vector<double> d;
  for (int i = 0; i < 27; ++i) {
    fathom::BleuStats sum[4];
    for (int k : {i % 3, (i / 3) % 3, i / 9})
      for (int f = 0; f < 4; ++f) sum[f] += stats[f][k];
    auto bleu = [&](int f) { return fathom::bleu_from_stats(sum[f]).score; };
    d.push_back(((bleu(1) - bleu(0)) + (bleu(3) - bleu(2))) / 2);
  }
  double mean = 0;
  for (double x : d) mean += x / 27;
  auto corpus = [&](const std::vector<std::string>& h) {
    return fathom::corpus_bleu(h, kRefs).score;
  };
  const double delta = ((corpus(kSeed1.system) - corpus(kSeed1.baseline)) +
                        (corpus(kSeed2.system) - corpus(kSeed2.baseline))) /
                       2;
  int far = 0;
  for (double x : d) far += std::fabs(x - mean) >= std::fabs(delta);
  const auto r = fathom::pooled_paired_bootstrap_bleu({kSeed1, kSeed2}, kRefs, 20000, 3);
  EXPECT_NEAR(r.difference, delta, 1e-9);
  EXPECT_NEAR(r.p, far / 27.0, 0.01) << "exact " << far / 27.0;
  EXPECT_NEAR(r.baseline.score, (corpus(kSeed1.baseline) + corpus(kSeed2.baseline)) / 2, 1e-9);
}

TEST(PooledBootstrap, MismatchedPairsAreNamed) {
  HypothesisPair short_pair = kSeed2;
  short_pair.system.pop_back();
  try {
    fathom::pooled_paired_bootstrap_bleu({kSeed1, short_pair}, kRefs);
    FAIL() << "a short file accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("pair 2 has 3 and 2 hypotheses for 3"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(fathom::pooled_paired_bootstrap_bleu({}, kRefs), std::invalid_argument);
}

}  // namespace test_pooled_bootstrap
