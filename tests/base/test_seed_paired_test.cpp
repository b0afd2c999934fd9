// Two configurations whose runs are paired by seed (base/metrics/seed_pooled_test.h,
// seed_paired_test): the test of the seeds' differences recomputed by hand where the test set
// shares no error (Student's t on k - 1 degrees of freedom), the seeds' common part cancelling
// where the unpaired test cannot see through it, and the BLEU and perplexity scorers on files
// whose answer is known.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/metrics/bleu.h"
#include "base/metrics/bleu_bootstrap.h"
#include "base/metrics/perplexity_bootstrap.h"
#include "base/metrics/seed_pooled_test.h"

namespace test_seed_paired_test {
using fathom::SegmentNll;

TEST(SeedPairedTest, IsStudentsTOnTheSeedsDifferencesWhereTheTestSetSharesNoError) {
  // D = (1, 1.5, 2): mean 1.5, sd 0.5, se 0.5 / sqrt(3); t = sqrt(27) on 2 degrees of freedom,
  // two-sided p = 1 - t / sqrt(t^2 + 2) = 1 - sqrt(27 / 29) = 0.035099; half width
  // t_{0.975, 2} se = 4.302653 x 0.288675 = 1.242071.
  const fathom::SeedArmsTest t = fathom::seed_paired_test({10, 12, 15}, {9, 10.5, 13}, {});
  EXPECT_TRUE(t.paired_by_seed);
  EXPECT_EQ(t.seeds_a, 3u);
  EXPECT_DOUBLE_EQ(t.mean_a, 37.0 / 3);
  EXPECT_DOUBLE_EQ(t.mean_b, 32.5 / 3);
  EXPECT_DOUBLE_EQ(t.difference, 1.5);
  EXPECT_NEAR(t.se, 0.5 / std::sqrt(3.0), 1e-12);
  EXPECT_NEAR(t.p, 1 - std::sqrt(27.0 / 29), 1e-3);
  EXPECT_NEAR(t.high - t.difference, 1.242071, 2e-3);
  EXPECT_NEAR(t.difference - t.low, 1.242071, 2e-3);
}

TEST(SeedPairedTest, TheSeedsCommonPartCancelsWhereTheUnpairedTestSeesOnlySpread) {
  // Seeds that matter far more than the arms: each arm 10, 20, 30 by seed, a better by 1-2.
  const std::vector<double> b = {10, 20, 30}, a = {11, 21.5, 32};
  const fathom::SeedArmsTest paired = fathom::seed_paired_test(a, b, {});
  const fathom::SeedArmsTest unpaired = fathom::seed_arms_test(a, b, {});
  EXPECT_DOUBLE_EQ(paired.difference, unpaired.difference);
  EXPECT_LT(paired.p, 0.05);
  EXPECT_GT(unpaired.p, 0.5);
  EXPECT_LT(paired.high - paired.low, (unpaired.high - unpaired.low) / 5);
  // The test set's error of the differences widens it: C = (k of_mean - of_each) / (k - 1).
  const fathom::SeedArmsTest with_error = fathom::seed_paired_test(a, b, {0.3, 0.4});
  EXPECT_NEAR(with_error.shared_se, std::sqrt((3 * 0.3 - 0.4) / 2), 1e-12);
  EXPECT_GT(with_error.p, paired.p);
}

TEST(SeedPairedTest, RefusesArmsThatDoNotPair) {
  EXPECT_THROW(fathom::seed_paired_test({1, 2, 3}, {1, 2}, {}), std::invalid_argument);
  EXPECT_THROW(fathom::seed_paired_test({1}, {2}, {}), std::invalid_argument);
}

TEST(SeedPairedTest, BleuOfIdenticalPairsIsNoDifferenceAndItsMeansAreTheCorpusScores) {
  const std::vector<std::string> refs = {"the cat sat on the mat", "a dog ran in the park today",
                                         "it rained all day long here", "we went home early"};
  const std::vector<std::vector<std::string>> a = {
      {"the cat sat on a mat", "a dog ran in the park", "it rained all day", "we went home"},
      {"the cat sat on the mat", "the dog ran", "it rained all day long", "we went home early"}};
  const fathom::SeedArmsTest same = fathom::seed_paired_bleu(a, a, refs, 200);
  EXPECT_EQ(same.difference, 0);
  EXPECT_EQ(same.p, 1);
  std::vector<std::vector<std::string>> b = a;
  b[0][1] = "a cat sat";
  b[1][1] = "a cat sat";
  const fathom::SeedArmsTest t = fathom::seed_paired_bleu(a, b, refs, 200);
  EXPECT_DOUBLE_EQ(
      t.mean_a,
      (fathom::corpus_bleu(a[0], refs).score + fathom::corpus_bleu(a[1], refs).score) / 2);
  EXPECT_DOUBLE_EQ(
      t.mean_b,
      (fathom::corpus_bleu(b[0], refs).score + fathom::corpus_bleu(b[1], refs).score) / 2);
  EXPECT_GT(t.difference, 0);
  EXPECT_TRUE(t.paired_by_seed);
  EXPECT_THROW(fathom::seed_paired_bleu(a, {a[0]}, refs), std::invalid_argument);
}

// Each seed's b run is its a run worse by 0.1 nats a token on every third segment: the arms
// swapped negate the difference and mirror the interval at the same p, and a run against itself
// is no difference.
TEST(SeedPairedTest, PerplexityIsAntisymmetricAndNothingAgainstItself) {
  std::vector<std::vector<SegmentNll>> a, b;
  for (int seed = 0; seed < 3; ++seed) {
    std::vector<SegmentNll> run, worse;
    for (int k = 0; k < 40; ++k) {
      const double nats = 3 + 0.03 * seed + 0.05 * (k % 7);
      run.push_back({10 * nats, 10});
      worse.push_back({10 * (nats + (k % 3 == 0 ? 0.1 : 0)), 10});
    }
    a.push_back(run);
    b.push_back(worse);
  }
  const fathom::SeedArmsTest t = fathom::seed_paired_perplexity(a, b);
  EXPECT_LT(t.difference, 0);  // a's perplexity lower
  EXPECT_NEAR(t.difference, t.mean_a - t.mean_b, 1e-12);
  EXPECT_GT(t.shared_se, 0);
  const fathom::SeedArmsTest swapped = fathom::seed_paired_perplexity(b, a);
  EXPECT_NEAR(swapped.difference, -t.difference, 1e-12);
  EXPECT_NEAR(swapped.p, t.p, 1e-12);
  EXPECT_NEAR(swapped.low, -t.high, 1e-9);
  const fathom::SeedArmsTest itself = fathom::seed_paired_perplexity(a, a);
  EXPECT_EQ(itself.difference, 0);
  EXPECT_EQ(itself.p, 1);
}

// Seeds to decide two configurations, by hand: z = z_0.975 + z_0.8 = 2.801585, so a
// difference of 2 leaves (2 / z)^2 = 0.509626 of variance. Unpaired, a seed adds
// s_a^2 + s_b^2 = 2: k = ceil(2 / 0.509626) = 4 per arm. Paired with k = 3, se^2 = 0.5 and
// C = 0.1, one difference's variance is 3 (0.5 - 0.1) = 1.2: ceil(1.2 / 0.409626) = 3 pairs.
// Where C alone exceeds 0.509626 no number of seeds decides it.
TEST(SeedPairedTest, SeedsToDecideTwoConfigurationsByHand) {
  fathom::SeedArmsTest unpaired;
  unpaired.seeds_a = unpaired.seeds_b = 3;
  unpaired.difference = 2;
  unpaired.sd_a = unpaired.sd_b = 1;
  EXPECT_EQ(fathom::seeds_to_decide(unpaired, 0.05).seeds, 4);
  fathom::SeedArmsTest paired = unpaired;
  paired.paired_by_seed = true;
  paired.se = std::sqrt(0.5);
  paired.shared_se = std::sqrt(0.1);
  EXPECT_EQ(fathom::seeds_to_decide(paired, 0.05).seeds, 3);
  paired.shared_se = std::sqrt(0.6);
  paired.se = std::sqrt(0.7);
  EXPECT_TRUE(fathom::seeds_to_decide(paired, 0.05).test_set_limits);
  unpaired.difference = 0;
  EXPECT_EQ(fathom::seeds_to_decide(unpaired, 0.05).seeds, 0);
}

}  // namespace test_seed_paired_test
