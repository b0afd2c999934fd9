#include "plot/smoothing.h"

#include <cmath>

namespace fathom::plot {

std::vector<double> debiased_ema(const std::vector<double>& values, double weight) {
  if (weight <= 0) return values;
  std::vector<double> out(values.size());
  double average = 0, weight_power = 1;  // weight_power = w^t
  for (size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) {
      out[i] = values[i];
      continue;
    }
    average = weight * average + (1 - weight) * values[i];
    weight_power *= weight;
    out[i] = average / (1 - weight_power);
  }
  return out;
}

}  // namespace fathom::plot
