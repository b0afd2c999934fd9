// The paired bootstrap's p-value (base/metrics/bleu_bootstrap.h) is calibrated: under
// simulated nulls -- two systems of equal quality whose errors are independent -- it rejects at
// alpha = 0.05 about 5 % of the time (issue 56: the old test, folding |d| before centring,
// rejected 10 %); under a real difference it has power; and on a corpus of three segments, whose
// 27 equally likely resamples can be enumerated, it converges to the exact p.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "base/metrics/bleu.h"
#include "base/metrics/bleu_bootstrap.h"

namespace test_bootstrap_calibration {

// Reference sentences of 8-20 words over a vocabulary of 300.
std::vector<std::string> references(int n, std::mt19937_64& rng) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) {
    std::string s;
    const int words = 8 + static_cast<int>(rng() % 13);
    for (int k = 0; k < words; ++k) s += (k ? " w" : "w") + std::to_string(rng() % 300);
    out.push_back(s);
  }
  return out;
}

// A system's output: each reference word kept, or with probability `error` replaced by a
// random word -- errors drawn independently for every system and segment.
std::vector<std::string> system_output(const std::vector<std::string>& refs, double error,
                                       std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<std::string> out;
  for (const auto& ref : refs) {
    std::string s, word;
    for (size_t i = 0; i <= ref.size(); ++i) {
      if (i < ref.size() && ref[i] != ' ') {
        word += ref[i];
        continue;
      }
      if (u(rng) < error) word = "w" + std::to_string(rng() % 300);
      s += (s.empty() ? "" : " ") + word;
      word.clear();
    }
    out.push_back(s);
  }
  return out;
}

// Share of `replications` test sets (200 segments, 1,000 draws each) on which p < 0.05.
double rejection_rate(double error_a, double error_b, int replications, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  int rejected = 0;
  for (int r = 0; r < replications; ++r) {
    const auto refs = references(200, rng);
    const auto a = system_output(refs, error_a, rng), b = system_output(refs, error_b, rng);
    rejected += fathom::paired_bootstrap_bleu(a, b, refs, 1000, rng()).p < 0.05;
  }
  return static_cast<double>(rejected) / replications;
}

TEST(BootstrapCalibration, RejectsAboutFivePercentOfTrueNulls) {
  // 400 replications: a binomial standard error of 1.1 points at 5 %, so 5 % and 10 % are
  // told apart ([0.03, 0.07] holds 5 % within two standard errors).
  const double size = rejection_rate(0.35, 0.35, 400, 7);
  std::printf("rejection rate under the null at alpha 0.05: %.3f\n", size);
  EXPECT_GE(size, 0.03);
  EXPECT_LE(size, 0.07);
}

TEST(BootstrapCalibration, HasPowerAgainstARealDifference) {
  // Error rates 0.35 against 0.30: about 4 BLEU apart on 200 segments.
  const double power = rejection_rate(0.35, 0.30, 100, 11);
  std::printf("power at alpha 0.05, error 0.35 vs 0.30: %.2f\n", power);
  EXPECT_GT(power, 0.5);
}

// Three segments: the 27 ordered resamples are equally likely, so the exact resampling
// distribution of the difference d, its mean, and p = P(|d - E d| >= |delta|) are computed
// here by enumeration; 20,000 draws estimate that p within a few thousandths.
TEST(BootstrapCalibration, ConvergesToTheEnumeratedP) {
  const std::vector<std::string> refs = {"the cat sat on the mat", "a dog ran in the park today",
                                         "it rained all day long here"};
  const std::vector<std::string> a = {"the cat sat on a mat", "a dog ran in the park today",
                                      "it rained all night here"};
  const std::vector<std::string> b = {"the cat sat on the mat", "the dog ran to a park",
                                      "it rained all day long here"};
  std::vector<fathom::BleuStats> sa, sb;
  for (int i = 0; i < 3; ++i) {
    sa.push_back(fathom::sentence_bleu_stats(a[i], refs[i]));
    sb.push_back(fathom::sentence_bleu_stats(b[i], refs[i]));
  }
  std::vector<double> d;
  for (int i = 0; i < 27; ++i) {
    fathom::BleuStats ta, tb;
    for (int k : {i % 3, (i / 3) % 3, i / 9}) {
      ta += sa[k];
      tb += sb[k];
    }
    d.push_back(fathom::bleu_from_stats(tb).score - fathom::bleu_from_stats(ta).score);
  }
  double mean = 0;
  for (double x : d) mean += x / 27;
  const double delta = fathom::corpus_bleu(b, refs).score - fathom::corpus_bleu(a, refs).score;
  int far = 0;
  for (double x : d) far += std::fabs(x - mean) >= std::fabs(delta);
  const double exact = far / 27.0;

  const auto r = fathom::paired_bootstrap_bleu(a, b, refs, 20000, 3);
  EXPECT_DOUBLE_EQ(r.difference, delta);
  EXPECT_NEAR(r.p, exact, 0.01) << "exact " << exact;
  EXPECT_LE(r.difference_low, r.difference_high);
  EXPECT_GE(r.difference_low, *std::min_element(d.begin(), d.end()));
  EXPECT_LE(r.difference_high, *std::max_element(d.begin(), d.end()));
}

}  // namespace test_bootstrap_calibration
