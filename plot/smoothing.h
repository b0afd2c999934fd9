#pragma once
// Debiased exponential moving average, as training dashboards smooth noisy loss curves:
//   s_t = w * s_{t-1} + (1 - w) * x_t,  s_0 = 0,  out_t = s_t / (1 - w^t)
// Dividing by 1 - w^t removes the pull towards the zero start (t counts finite values only).
#include <vector>

namespace fathom::plot {

// weight in [0, 1); 0 returns the values unchanged. Non-finite values (NaN, Inf: a diverged
// run) are passed through as they are and do not enter the average.
std::vector<double> debiased_ema(const std::vector<double>& values, double weight);

// The same average one value at a time, for a curve that grows: next(x) continues from the
// values seen so far, so appending a point does not re-smooth the curve.
class DebiasedEma {
 public:
  explicit DebiasedEma(double weight) : weight_(weight) {}
  double next(double value);

 private:
  double weight_, average_ = 0, weight_power_ = 1;
};

}  // namespace fathom::plot
