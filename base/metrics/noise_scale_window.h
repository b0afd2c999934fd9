#pragma once
// The gradient noise scale during training, from what an update already has (McCandlish et al.
// 2018, arXiv 1812.06162, appendix A.1): the gradients of small batches -- each batch of the
// update, in one process or on every rank of a data-parallel run -- and the update's whole
// gradient, the mean of its batches'. With B_small and B_big tokens,
//     E|g_small|^2 = |G|^2 + tr(Sigma) / B_small,   E|g_big|^2 = |G|^2 + tr(Sigma) / B_big,
// two equations whose solution gives unbiased estimates of tr(Sigma) and |G|^2 from one update
// (with several small batches of unequal sizes, their mean |g|^2 and mean 1/B_small in the
// first: the same equation, as in base/metrics/noise_scale.h; reading every batch of the update
// makes its first side the batches' scatter around their mean, without the mean gradient's
// cross term that a single batch's norm carries). One update's estimates are very
// noisy; a log window averages them over its updates, and B_simple is the ratio of the means
// (McCandlish et al. average the two separately for the same reason). Their standard errors are
// the spread of the per-update estimates over the window's updates -- which also holds the
// drift of the parameters within the window -- and the interval is noise_scale.h's.
#include <cstdint>

#include "base/metrics/noise_scale.h"

namespace fathom {

// One update's readings.
struct TwoBatchReading {
  double small_sq = 0;          // mean over the small batches of |g_small|^2
  double small_inv_tokens = 0;  // mean over them of 1 / B_small
  double big_sq = 0;            // |g_big|^2, the update's gradient (before clipping)
  double big_tokens = 0;        // B_big
};
// tr(Sigma) and |G|^2 of one update (std::invalid_argument unless 1 / B_small > 1 / B_big).
void solve_two_batch(const TwoBatchReading& r, double& trace, double& grad_sq);

// The per-update estimates of a window, as sums: what a checkpoint keeps of it.
struct NoiseScaleWindow {
  int64_t updates = 0;
  double trace = 0, trace_sq = 0;      // sum of tr, of tr^2
  double grad_sq = 0, grad_sq_sq = 0;  // sum of |G|^2, of (|G|^2)^2
  void add(double update_trace, double update_grad_sq);
  void add(const NoiseScaleWindow& other);  // pooled windows
};

// A window back from what a log point stores of it: its updates, the means and their standard
// errors (NaN: none stored, as for one update). Pools logged windows exactly, up to rounding.
NoiseScaleWindow window_of_means(int64_t updates, double trace, double trace_se, double grad_sq,
                                 double grad_sq_se);

// The window's means, their standard errors (none -- an open interval -- below 2 updates) and
// B_simple with its interval; `batches` counts the updates, `tokens` is 0.
NoiseScaleEstimate estimate_noise_scale(const NoiseScaleWindow& w);

}  // namespace fathom
