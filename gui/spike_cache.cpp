#include "gui/spike_cache.h"

#include <cmath>
#include <utility>

namespace fathom::gui {

void SpikeCache::setRule(const SpikeRule& rule) {
  if (rule.k == rule_.k && rule.window == rule_.window) return;
  rule_ = rule;
  curves_.clear();
}

const std::vector<Spike>& SpikeCache::spikes(const CurveKey& key,
                                             const std::vector<db::MetricPoint>& points) {
  Curve& c = curves_[key];
  const bool grew = c.seen <= points.size() && (c.seen == 0 || points[c.seen - 1] == c.last);
  if (!grew) c = Curve{};
  if (c.seen == points.size()) return c.spikes;
  // find_spikes judges a point by the `window` finite points before it: start far enough
  // back that the first new point sees its whole window, and keep only the new points' spikes.
  size_t from = c.seen;
  for (int finite = 0; from > 0 && finite < rule_.window; --from)
    if (std::isfinite(points[from - 1].value)) ++finite;
  std::vector<std::pair<int64_t, double>> tail;
  tail.reserve(points.size() - from);
  for (size_t i = from; i < points.size(); ++i) tail.emplace_back(points[i].step, points[i].value);
  const int64_t first_new = c.seen ? points[c.seen].step : points.front().step;
  for (const Spike& s : find_spikes(tail, rule_))
    if (s.step >= first_new) c.spikes.push_back(s);
  c.seen = points.size();
  c.last = points.back();
  return c.spikes;
}

}  // namespace fathom::gui
