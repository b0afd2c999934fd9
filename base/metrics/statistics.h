#pragma once
// What a comparison over seeds says, and how sure it is: the mean with its sample standard
// deviation, the Student-t interval of the mean, and Welch's test of two means with unequal
// variances (the usual test for "method A beats method B" over a few seeds each). Student's t
// distribution is Boost.Math's.
#include <cstddef>
#include <optional>
#include <random>
#include <vector>

namespace fathom {

struct SampleSummary {
  int n = 0;
  double mean = 0;
  std::optional<double> std;  // sample standard deviation (n - 1 in the denominator); n >= 2
};

SampleSummary summarize(const std::vector<double>& values);

// The middle value (the mean of the middle two for an even count); nullopt for none.
std::optional<double> median(std::vector<double> values);

// Half the width of the two-sided `level` confidence interval of the mean,
// t_{(1+level)/2, n-1} * s / sqrt(n); nullopt for n < 2.
std::optional<double> t_interval_half_width(const SampleSummary& sample, double level = 0.95);

// The lower tail of an expanded percentile interval (after Hesterberg 2015, "What teachers
// should know about the bootstrap", The American Statistician 69(4)): a percentile bootstrap
// of a mean from few values is too narrow -- its draws know the spread only as the sample gives
// it, as a z-interval does -- so its ends are read at Phi(-t_{(1+level)/2, df}) and 1 minus that
// instead of at (1 - level)/2 and (1 + level)/2: 1.06 % and 98.94 % for 95 % at df 8.
// Hesterberg's tail is Phi(-sqrt(n/(n-1)) t): here the draws carry the sqrt(n/(n-1)) themselves
// (experiments/critical_batch_interval.cpp rescales them). (1 - level)/2 where df < 1.
double expanded_percentile_tail(double df, double level = 0.95);

// A bootstrap draw's mean of n values moved from the sample's mean by sqrt(n / (n - 1)) times
// its distance: a resampled mean spreads with (n - 1) / n of s^2 / n (a third short at three
// values; Efron & Tibshirani 1993, ch. 5), the moved one with s^2 / n. As drawn where n < 2.
double rescaled_bootstrap_mean(double drawn, double mean, size_t n);

// One bootstrap draw of the mean of `values` (n of them drawn with replacement, `draw() % n` each,
// in order), rescaled about their `mean` as above: what every interval over seeds draws a grid
// point's or a rate's mean as (experiments/grid_optimum.h, experiments/lr_sensitivity.h).
double rescaled_resampled_mean(const std::vector<double>& values, double mean,
                               std::mt19937_64& draw);

struct WelchTest {
  double t = 0;   // (mean_a - mean_b) / sqrt(s_a^2/n_a + s_b^2/n_b)
  double df = 0;  // Welch-Satterthwaite degrees of freedom
  double p = 1;   // two-sided p-value of "the means are equal"
};

// Welch's t-test of equal means; nullopt when a side has fewer than two values. Two samples
// without spread: p = 1 when their means are equal, else 0.
std::optional<WelchTest> welch_t_test(const std::vector<double>& a, const std::vector<double>& b);

// Holm's step-down adjustment of a family of p-values (Holm 1979): with the m values sorted
// ascending, p_(i) becomes max over j <= i of min(1, (m - j + 1) p_(j)). Rejecting where the
// adjusted value is below alpha keeps the chance of any false "A beats B" among the m tests at
// most alpha -- seven methods tested against a baseline at two depths are fourteen chances.
// Returned in the input's order.
std::vector<double> holm_adjust(const std::vector<double>& p);

}  // namespace fathom
