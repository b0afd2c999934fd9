#pragma once
// The gradient noise scale (McCandlish, Kaplan, Amodei et al. 2018, "An empirical model of
// large-batch training", arXiv 1812.06162, s2.2 and appendix A.1): with G the true gradient of
// the per-token loss and Sigma the per-token covariance of its samples, a batch of B tokens has
// E|g_B|^2 = |G|^2 + tr(Sigma) / B, and
//     B_simple = tr(Sigma) / |G|^2
// is the batch size at which the gradient's noise equals its signal: far below it a step is
// mostly noise (doubling the batch nearly halves the steps needed), far above it a bigger batch
// buys almost nothing -- the critical batch size's simple estimate.
//
// From K batches of sizes T_b with gradients g_b, and their token-weighted mean G_K (a batch of
// T = sum T_b tokens), the two equations
//     E[mean_b |g_b|^2] = |G|^2 + tr(Sigma) h,   h = mean_b 1 / T_b
//     E[|G_K|^2]        = |G|^2 + tr(Sigma) / T
// give unbiased estimates of tr(Sigma) and |G|^2 (McCandlish et al.'s two-batch estimator, every
// batch a small one and their union the big one; with equal sizes, B times the batches' sample
// variance and |G_K|^2 less its noise). B_simple is their ratio. Its uncertainty: each estimate's
// jackknife standard error over the batches (leave one batch out), and the interval
// [(tr - z se_tr) / (|G|^2 + z se_G), (tr + z se_tr) / (|G|^2 - z se_G)] from the two 97.5 %
// intervals (Bonferroni: jointly at least 95 %), open above where |G|^2's reaches 0 -- the
// batches could not tell the mean gradient from noise, so B_simple is only bounded below.
#include <cstdint>
#include <vector>

namespace fathom {

// One parameter group's readings over K batches. Sums of squares and inner products add over
// disjoint parameter groups, so a union's readings are the sums of its parts'.
struct NoiseScaleReadings {
  std::vector<double> tokens;                 // T_b: the tokens batch b's loss averages over
  std::vector<double> sq_norms;               // |g_b|^2
  std::vector<double> dots;                   // <G_K, g_b>, G_K = sum_b T_b g_b / sum_b T_b
  void add(const NoiseScaleReadings& other);  // the union's readings (same batches)
};

struct NoiseScaleEstimate {
  int batches = 0;
  double tokens = 0;                   // T = sum T_b
  double trace = 0, trace_se = 0;      // tr(Sigma), per token
  double grad_sq = 0, grad_sq_se = 0;  // |G|^2
  double mean_grad_sq = 0;             // |G_K|^2, the measured one
  double b_simple = 0;                 // tr / |G|^2 in tokens; infinity where |G|^2 <= 0
  double b_low = 0, b_high = 0;        // the >= 95 % interval; b_high infinite when open
  bool resolved = false;               // |G|^2's interval excludes 0 (b_high finite)
};

// The estimate from at least 2 batches (std::invalid_argument otherwise, or on sizes that
// disagree or a batch without tokens).
NoiseScaleEstimate estimate_noise_scale(const NoiseScaleReadings& r);

// From an estimate's trace, grad_sq and their standard errors: b_simple, the Bonferroni
// interval [b_low, b_high] and whether it is resolved (the header's rule). A standard error
// that is not finite (too few readings to have one) leaves the interval open: [0, inf].
void set_noise_scale_interval(NoiseScaleEstimate& e);

}  // namespace fathom
