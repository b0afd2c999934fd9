#pragma once
// Debiased exponential moving average, as training dashboards smooth noisy loss curves:
//   s_t = w * s_{t-1} + (1 - w) * x_t,  s_0 = 0,  out_t = s_t / (1 - w^t)
// Dividing by 1 - w^t removes the pull towards the zero start (t counts finite values only).
#include <vector>

namespace fathom::plot {

// weight in [0, 1); 0 returns the values unchanged. Non-finite values (NaN, Inf: a diverged
// run) are passed through as they are and do not enter the average.
std::vector<double> debiased_ema(const std::vector<double>& values, double weight);

}  // namespace fathom::plot
