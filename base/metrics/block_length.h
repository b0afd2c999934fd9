#pragma once
// How many neighbouring segments the circular block bootstrap (Politis & Romano 1992) draws
// together when the segments are serially dependent -- a language model's test text cut into
// blocks, where a hard passage spans several. Chosen from the data by Politis & White (2004,
// "Automatic block-length selection for the dependent bootstrap", Econometric Reviews 23(1))
// with the correction of Patton, Politis & White (2009, Econometric Reviews 28(4)): the block
// length that minimises the mean squared error of the bootstrap's variance of a mean,
//
//   b = (2 G^2 n / D)^(1/3),  G = sum_{|k|<=M} h(k/M) |k| R(k),  D = 4/3 (sum_{|k|<=M} h(k/M)
//   R(k))^2,
//
// R(k) the series' autocovariances, h(x) = min(1, 2 (1 - |x|)) the flat-top lag window
// (Politis & Romano 1995), M = 2 m with m the first lag after which K_N = max(5,
// sqrt(log10 n)) autocorrelations in a row lie within +-2 sqrt(log10 n / n), M at most
// sqrt(n) + K_N; b rounded up, at most min(3 sqrt(n), n / 3). For an AR(1) series of
// coefficient phi this tends to (6 phi^2 / (1 - phi^2)^2)^(1/3) n^(1/3).
#include <cstddef>
#include <vector>

namespace fathom {

// 1 for a series without measurable dependence (and for fewer than 8 values, or a constant
// one): the plain bootstrap's single draws.
size_t circular_block_length(const std::vector<double>& series);

// The series' long-run variance, sigma^2 = sum_k R(k) (n times the variance of its mean), by
// the same flat-top lag window (Politis & Romano 1995): R(0) where no autocorrelation is
// significant or the estimate comes out non-positive (negatively correlated neighbours, where
// R(0) overstates the spread); 0 for a constant series or fewer than 2 values. Its bias falls
// faster than any power of M for geometrically decaying autocorrelation, where a block
// bootstrap's variance is biased low by O(1/b): what studentises the block bootstrap's test.
double long_run_variance(const std::vector<double>& series);
// The window's width M that chooses for `series` (0: nothing significant), and the estimate
// with a width given -- what a bootstrap draw is studentised with, the original's M kept so
// each draw does not choose its own.
size_t flat_top_width(const std::vector<double>& series);
double long_run_variance(const std::vector<double>& series, size_t width);

}  // namespace fathom
