#include "core/train/schedule.h"

#include <cmath>

namespace fathom {

double inverse_sqrt_lr(int64_t update, double peak, int64_t warmup) {
  if (warmup <= 0) return peak;
  if (update <= warmup) return peak * static_cast<double>(update) / static_cast<double>(warmup);
  return peak * std::sqrt(static_cast<double>(warmup) / static_cast<double>(update));
}

}  // namespace fathom
