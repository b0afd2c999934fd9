#include "plot/smoothing.h"

#include <cmath>

namespace fathom::plot {

double DebiasedEma::next(double value) {
  if (weight_ <= 0 || !std::isfinite(value)) return value;
  average_ = weight_ * average_ + (1 - weight_) * value;
  weight_power_ *= weight_;  // w^t
  return average_ / (1 - weight_power_);
}

std::vector<double> debiased_ema(const std::vector<double>& values, double weight) {
  if (weight <= 0) return values;
  std::vector<double> out(values.size());
  DebiasedEma ema(weight);
  for (size_t i = 0; i < values.size(); ++i) out[i] = ema.next(values[i]);
  return out;
}

}  // namespace fathom::plot
