#pragma once
// A configuration's runs over several seeds against one fixed run, on one test set: does the
// configuration -- not one lucky seed of it -- beat that run? (A fork sweep's lr x seed grid
// against its parent.) Two things are random: which seeds trained (a seed's effect a_j) and
// which segments the test set holds (each seed's error e_j on it). The difference of seed j on
// the whole set is d_j = mu + a_j + e_j, and their mean's variance is
//
//   Var(mean d) = sigma_a^2 / k + Var(mean e) = E[s_d^2] / k + C,
//
// s_d^2 the sample variance of the d_j over the k seeds (its expectation sigma_a^2 plus the part
// of the test set's error the seeds do not share, V - C) and C the covariance of two seeds'
// errors on the test set -- what they share, the fixed run's own error first of all, which
// s_d cannot see: the seeds were all scored on the same segments. C is estimated from the
// test set alone, C = (k Var(mean e) - mean_j Var(e_j)) / (k - 1), from the segment draws of a
// paired bootstrap or from each segment's influence (test_set_error_of_draws, _of_influence).
// The seed part s_d^2 / k is known only to k - 1 degrees of freedom, C (from hundreds of
// segments) is counted as known, and the test is the generalised one for a sum of an estimated
// and a known variance (Tsui & Weerahandi 1989; Weerahandi 1993, JASA 88): with U ~
// chi^2_{k-1} and v(U) = s_d^2 (k - 1) / (U k) + C,
//
//   p = E_U[ 2 (1 - Phi(|mean d| / sqrt(v(U)))) ],   interval mean d +- q,
//   E_U[ Phi(q / sqrt(v(U))) ] = 0.975,
//
// the expectation over U by a 512-point quadrature. It is Student's t on k - 1 degrees of
// freedom where C is 0 and the normal test where the seeds agree, and between them it keeps its
// size, conservatively: 1.5-4.2 % of true nulls at 0.05 with 2-5 seeds (bench_seed_pooled_size,
// docs/performance.md), where Satterthwaite's degrees of freedom for the same sum rejected up to
// 11.6 % (k = 2) and 8.4 % (k = 3). A paired bootstrap of
// one seed (Koehn 2004) sees only e_j, Welch's test over seeds only s_d; both sources at once
// is the point of Sellam et al. (2022, "The MultiBERTs", ICLR) and Bouthillier et al. (2021,
// "Accounting for variance in machine learning benchmarks", MLSys), whose bootstrap over seeds
// cannot keep its size with the three to five seeds a fork sweep has.
#include <cstddef>
#include <vector>

namespace fathom {

// The test set's error of the seeds' differences: Var(mean_j e_j) and mean_j Var(e_j).
struct TestSetError {
  double of_mean = 0;
  double of_each = 0;
  // C = (k of_mean - of_each) / (k - 1), at least 0: what every seed's error shares. A
  // negative estimate is noise (seeds of one configuration, scored against one run, do not
  // err in opposite directions); 0 keeps the test conservative.
  double shared(size_t seeds) const;
};

// From paired bootstrap draws: draws[b][j] seed j's difference in draw b, every seed's
// difference of one draw scored on the same segments. std::invalid_argument with fewer than
// two draws or draws of unequal size.
TestSetError test_set_error_of_draws(const std::vector<std::vector<double>>& draws);

// From each seed's influence series (influence[j][k]: segment k's first-order share of seed j's
// difference, so that e_j is about their mean): variances of means of n segments,
// long_run_variance(series, width) / n (block_length.h; width 0: independent segments).
TestSetError test_set_error_of_influence(const std::vector<std::vector<double>>& influence,
                                         size_t width);

struct SeedPooledTest {
  size_t seeds = 0;          // k
  double baseline = 0;       // the fixed run's score on the whole set
  double system = 0;         // the mean over the seeds of theirs
  double difference = 0;     // system - baseline
  double seed_sd = 0;        // s_d
  double shared_se = 0;      // sqrt(C)
  double se = 0;             // sqrt(s_d^2 / k + C), the plug-in standard error
  double low = 0, high = 0;  // the 95 % interval of the difference
  double p = 1;              // two-sided, of "the configuration scores as the run"
  // Serial segments: the flat-top lag window C was estimated over (0: segments independent).
  size_t lag_window = 0;
};

// Two configurations, each over its seeds, on one test set (a study's row against its
// reference row): d = mean_a - mean_b and, with each arm's unshared error W = k / (k - 1)
// (mean_j Var(e_j) - Var(mean e)), Var(d) = E[s_a^2] / k_a + E[s_b^2] / k_b + C with
// C = Var(mean e_a - mean e_b) - W_a / k_a - W_b / k_b: what the test set errs by for one arm
// against the other that neither arm's spread shows. The generalised test then takes an
// expectation over U_a and U_b (a 128 x 128 grid; 0-4.5 % of true nulls at 0.05 with 2-5 seeds
// an arm, very conservative with two); an arm of one run is fixed (no U, s 0). One arm of k
// seeds against one run is seed_pooled_test.
struct ArmsTestSetError {
  double of_difference = 0;                             // Var(mean e_a - mean e_b)
  double unshared_a = 0, unshared_b = 0;                // W_a, W_b (0 for an arm of one run)
  double shared(size_t seeds_a, size_t seeds_b) const;  // C, at least 0
};
// draws[b]: every run's score in draw b, arm a's `seeds_a` runs first, all on the same segments.
ArmsTestSetError arms_error_of_draws(const std::vector<std::vector<double>>& draws, size_t seeds_a);
// influence[r]: run r's influence series on its own score, arm a's `seeds_a` first.
ArmsTestSetError arms_error_of_influence(const std::vector<std::vector<double>>& influence,
                                         size_t seeds_a, size_t width);

struct SeedArmsTest {
  size_t seeds_a = 0, seeds_b = 0;
  double mean_a = 0, mean_b = 0, difference = 0;  // difference = mean_a - mean_b
  double sd_a = 0, sd_b = 0;                      // the seeds' sample sd; 0 for one run
  double shared_se = 0;                           // sqrt(C)
  double se = 0;                                  // sqrt(s_a^2 / k_a + s_b^2 / k_b + C)
  double low = 0, high = 0;                       // the 95 % interval of the difference
  double p = 1;                                   // two-sided, of "the arms score the same"
  size_t lag_window = 0;                          // as SeedPooledTest's
  bool paired_by_seed = false;                    // seed_paired_test's
};
// std::invalid_argument where an arm is empty or neither has two runs.
SeedArmsTest seed_arms_test(const std::vector<double>& a, const std::vector<double>& b,
                            const ArmsTestSetError& error);

// `baseline`: the fixed run's score; `systems`: each seed's score (at least two), all on the
// whole test set. Without any spread (se 0): p 1 where the difference is 0, else 0.
// std::invalid_argument with fewer than two seeds.
SeedPooledTest seed_pooled_test(double baseline, const std::vector<double>& systems,
                                const TestSetError& error);
// The same read off a test of arm a (the seeds) against arm b of one run (the baseline).
SeedPooledTest as_pooled(const SeedArmsTest& arms);

// Two configurations whose runs are paired by seed -- a[j] and b[j] trained from the same seed,
// so the same initialisation and data order where the arms differ only in what is compared --
// tested on the seeds' differences D_j = a_j - b_j: what the seeds share cancels in each D_j
// (Var(D) = Var(a) + Var(b) - 2 Cov(a, b)), at the price of k - 1 degrees of freedom instead of
// about 2 (k - 1). `error` is the test set's error of the D_j (draws or influence of a_j's score
// minus b_j's), the generalised test that of seed_pooled_test against a difference of 0. The
// design is chosen before the results are seen (`--pair-seeds`), never by which p is smaller.
// mean_a, mean_b, sd_a and sd_b describe the arms; se, low, high and p are the paired test's.
// std::invalid_argument with fewer than two pairs or arms of unequal size.
SeedArmsTest seed_paired_test(const std::vector<double>& a, const std::vector<double>& b,
                              const TestSetError& error);

// How many seeds would decide an inconclusive configuration: the k whose standard error
// sqrt(s_d^2 / k + C) puts the observed difference (z_{1-alpha/2} + z_power) of them from 0
// -- the normal's plan, so about (with k this small the test needs a little more). More seeds
// shrink only the seed part: where C alone is too large no k decides it, and the test set is
// what must grow (`test_set_limits`). Nothing where the difference is 0.
struct SeedsToDecide {
  int seeds = 0;                 // 0: none do
  bool test_set_limits = false;  // no number of seeds: the shared error alone is too large
};
SeedsToDecide seeds_to_decide(const SeedPooledTest& t, double alpha, double power = 0.8);
// The same for two configurations: seeds per arm (pairs where paired_by_seed), each seed's
// share of the variance s_a^2 + s_b^2 (paired: k (se^2 - C), the variance of one difference).
SeedsToDecide seeds_to_decide(const SeedArmsTest& t, double alpha, double power = 0.8);

// Beyond this many seeds a plan is no plan: reports say "more than" it.
constexpr int kMostSeedsPlanned = 10000;

}  // namespace fathom
