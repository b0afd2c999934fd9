#include "db/series_at_step.h"

#include <algorithm>

namespace fathom::db {

double series_at_step(const std::vector<MetricPoint>& t, int64_t step) {
  const double s = static_cast<double>(step);
  auto hi = std::lower_bound(t.begin(), t.end(), step,
                             [](const MetricPoint& p, int64_t at) { return p.step < at; });
  if (hi != t.end() && hi->step == step) return hi->value;
  if (hi == t.begin()) return hi->step > 0 ? hi->value * s / static_cast<double>(hi->step) : 0.0;
  const auto lo = hi - 1;
  if (hi == t.end())
    return lo->step > 0 ? lo->value * s / static_cast<double>(lo->step) : lo->value;
  const double f = (s - lo->step) / static_cast<double>(hi->step - lo->step);
  return lo->value + f * (hi->value - lo->value);
}

}  // namespace fathom::db
