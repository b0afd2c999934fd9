// The paired bootstrap of corpus perplexity (base/metrics/perplexity_bootstrap.h): the corpus
// score from hand-computed sums, p against the exact resampling distribution of a three-segment
// test set, its size under simulated nulls and its power, the seeds' pooling, the refusals
// (other tokenisations), and the file a run keeps the segments in.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "base/metrics/perplexity_bootstrap.h"
#include "base/util/error.h"
#include "tests/support/temp_dir.h"

namespace test_perplexity_bootstrap {
using fathom::SegmentNll;

TEST(CorpusPerplexity, IsTheExpOfTheNllPerTokenOverAllSegments) {
  // (2 + 4) nats over (1 + 3) tokens: exp(1.5), not the mean of exp(2) and exp(4/3).
  EXPECT_DOUBLE_EQ(fathom::corpus_perplexity({{2.0, 1}, {4.0, 3}}), std::exp(1.5));
  EXPECT_EQ(fathom::corpus_perplexity({}), 0.0);
}

// Three segments: the 27 ordered resamples are equally likely, so the exact resampling
// distribution of the difference, its mean and p = P(|d - E d| >= |delta|) come from
// enumerating them; 20,000 draws estimate that p within a hundredth.
TEST(PerplexityBootstrap, ConvergesToTheEnumeratedP) {
  const std::vector<SegmentNll> a = {{10.0, 5}, {30.0, 12}, {8.0, 4}};
  const std::vector<SegmentNll> b = {{9.0, 5}, {31.0, 12}, {6.5, 4}};
  std::vector<double> d;
  for (int i = 0; i < 27; ++i) {
    double na = 0, nb = 0, tokens = 0;
    for (int k : {i % 3, (i / 3) % 3, i / 9}) {
      na += a[k].nll;
      nb += b[k].nll;
      tokens += static_cast<double>(a[k].tokens);
    }
    d.push_back(std::exp(nb / tokens) - std::exp(na / tokens));
  }
  double mean = 0;
  for (double x : d) mean += x / 27;
  const double delta = std::exp(46.5 / 21) - std::exp(48.0 / 21);  // hand-summed
  int far = 0;
  for (double x : d) far += std::fabs(x - mean) >= std::fabs(delta);
  const double exact = far / 27.0;

  const auto r = fathom::paired_bootstrap_perplexity(a, b, 20000, 3);
  EXPECT_DOUBLE_EQ(r.baseline.score, std::exp(48.0 / 21));
  EXPECT_DOUBLE_EQ(r.difference, delta);
  EXPECT_LT(r.difference, 0);  // lower perplexity: the system is better
  EXPECT_NEAR(r.p, exact, 0.01) << "exact " << exact;
  EXPECT_GE(r.difference_low, *std::min_element(d.begin(), d.end()));
  EXPECT_LE(r.difference_high, *std::max_element(d.begin(), d.end()));
}

TEST(PerplexityBootstrap, ASystemAgainstItselfHasPOneAndAUniformGainTheSmallestP) {
  std::vector<SegmentNll> a, better;
  for (int i = 0; i < 50; ++i) {
    a.push_back({2.0 + 0.1 * (i % 7), 1 + i % 9});
    better.push_back({a.back().nll - 0.05, a.back().tokens});
  }
  const auto self = fathom::paired_bootstrap_perplexity(a, a, 200, 1);
  EXPECT_EQ(self.difference, 0.0);
  EXPECT_EQ(self.p, 1.0);
  // Every segment 0.05 nats lower: every draw's difference is negative, so the interval is
  // below zero, and the centred draws scatter far less than the difference itself.
  const auto gain = fathom::paired_bootstrap_perplexity(a, better, 200, 1);
  EXPECT_LT(gain.difference_high, 0);
  EXPECT_LT(gain.p, 0.05);
}

// Simulated test sets of 200 segments whose per-token NLL is drawn for two systems of equal
// (null) or different quality, with independent noise per system and segment.
double rejection_rate(double shift, int replications, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> hardness(2.5, 0.6), noise(0, 0.25);
  std::uniform_int_distribution<int> length(5, 40);
  int rejected = 0;
  for (int r = 0; r < replications; ++r) {
    std::vector<SegmentNll> a, b;
    for (int i = 0; i < 200; ++i) {
      const int tokens = length(rng);
      const double h = hardness(rng);
      a.push_back({tokens * std::max(0.0, h + noise(rng)), tokens});
      b.push_back({tokens * std::max(0.0, h - shift + noise(rng)), tokens});
    }
    rejected += fathom::paired_bootstrap_perplexity(a, b, 1000, rng()).p < 0.05;
  }
  return static_cast<double>(rejected) / replications;
}

TEST(PerplexityBootstrap, RejectsAboutFivePercentOfTrueNullsAndHasPower) {
  // 400 replications: a binomial standard error of 1.1 points at 5 %.
  const double size = rejection_rate(0.0, 400, 7);
  std::printf("rejection rate under the null at alpha 0.05: %.3f\n", size);
  EXPECT_GE(size, 0.03);
  EXPECT_LE(size, 0.07);
  // 0.1 nats a token lower: the segments' differences (sd 0.25 * sqrt 2 a token) average over
  // 200 segments to a standard error of about 0.025, so the shift is four of them.
  const double power = rejection_rate(0.1, 100, 11);
  std::printf("power at alpha 0.05, 0.1 nats a token apart: %.2f\n", power);
  EXPECT_GT(power, 0.8);
}

TEST(PerplexityBootstrap, PoolsSeedsAsTheMeanOfTheirPerplexities) {
  const std::vector<SegmentNll> a1 = {{4, 2}, {9, 3}, {2, 2}}, b1 = {{3, 2}, {9, 3}, {2, 2}};
  const std::vector<SegmentNll> a2 = {{5, 2}, {8, 3}, {3, 2}}, b2 = {{5, 2}, {7, 3}, {1, 2}};
  const auto pooled = fathom::pooled_paired_bootstrap_perplexity({{a1, b1}, {a2, b2}}, 500, 9);
  EXPECT_DOUBLE_EQ(pooled.baseline.score, 0.5 * (std::exp(15.0 / 7) + std::exp(16.0 / 7)));
  EXPECT_DOUBLE_EQ(pooled.system.score, 0.5 * (std::exp(14.0 / 7) + std::exp(13.0 / 7)));
  // One pair is the plain paired test, draw for draw.
  const auto one = fathom::pooled_paired_bootstrap_perplexity({{a1, b1}}, 500, 9);
  const auto plain = fathom::paired_bootstrap_perplexity(a1, b1, 500, 9);
  EXPECT_EQ(one.p, plain.p);
  EXPECT_EQ(one.difference_low, plain.difference_low);
}

TEST(PerplexityBootstrap, OtherTokenisationsAndMismatchedListsAreRefusedByName) {
  const std::vector<SegmentNll> a = {{4, 2}, {9, 3}}, other = {{4, 2}, {9, 4}};
  try {
    fathom::paired_bootstrap_perplexity(a, other);
    FAIL() << "other token counts were compared";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("segment 2: 3 target tokens for the baseline, 4"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("tokenise the test set differently"), std::string::npos);
  }
  EXPECT_THROW(fathom::paired_bootstrap_perplexity(a, {{4, 2}}), std::invalid_argument);
  EXPECT_THROW(fathom::paired_bootstrap_perplexity({{1, 0}}, {{1, 0}}), std::invalid_argument);
  EXPECT_THROW(fathom::paired_bootstrap_perplexity({}, {}), std::invalid_argument);
  EXPECT_THROW(fathom::pooled_paired_bootstrap_perplexity({}), std::invalid_argument);
}

TEST(SegmentNllFile, RoundTripsToTheLastBitAndNamesTheLineAndFieldOfBadInput) {
  const fathom::testing::TempDir dir;
  const std::vector<SegmentNll> segments = {{0.1 + 0.2, 3}, {123.456789012345678, 40}, {0, 1}};
  const std::string path = dir.write("test.nll", fathom::segment_nll_text(segments));
  const auto back = fathom::read_segment_nll_file(path);
  ASSERT_EQ(back.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(back[i].nll, segments[i].nll);  // exactly: 17 significant digits
    EXPECT_EQ(back[i].tokens, segments[i].tokens);
  }
  const auto error_of = [&](const std::string& text) -> fathom::InputError {
    const std::string bad = dir.write("bad.nll", text);
    try {
      fathom::read_segment_nll_file(bad);
    } catch (const fathom::InputError& e) {
      return e;
    }
    ADD_FAILURE() << "accepted: " << text;
    return fathom::InputError(bad, 0, "", "");
  };
  EXPECT_EQ(error_of("nll tokens\n1\t2\n").line(), 1);
  const auto no_tab = error_of("nll\ttokens\n1\t2\n3 4\n");
  EXPECT_EQ(no_tab.line(), 3);
  EXPECT_EQ(no_tab.field(), "nll");
  const auto negative = error_of("nll\ttokens\n-1\t2\n");
  EXPECT_EQ(negative.field(), "nll");
  const auto tokens = error_of("nll\ttokens\n1\t2.5\n");
  EXPECT_EQ(tokens.line(), 2);
  EXPECT_EQ(tokens.field(), "tokens");
  EXPECT_NE(std::string(tokens.what()).find("bad.nll"), std::string::npos) << tokens.what();
  EXPECT_THROW(fathom::read_segment_nll_file(dir.file("missing.nll")), fathom::InputError);
}

}  // namespace test_perplexity_bootstrap
