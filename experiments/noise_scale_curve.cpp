// A run's logged noise scale, pooled (experiments/noise_scale_curve.h).
#include "experiments/noise_scale_curve.h"

#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

#include "base/util/error.h"
#include "db/metric_names.h"

namespace fathom::experiments {
namespace {

std::map<int64_t, double> by_step(const db::Store& store, int64_t run, const std::string& name) {
  std::map<int64_t, double> out;
  for (const auto& p : store.metric_series(run, name)) out[p.step] = p.value;
  return out;
}

double at(const std::map<int64_t, double>& series, int64_t step) {
  const auto it = series.find(step);
  return it == series.end() ? NAN : it->second;
}

// The windows of `updates` (noise.updates by step), `pool` at a time.
std::vector<NoiseScalePoint> pooled_windows(const db::Store& store, int64_t run,
                                            const std::map<int64_t, double>& updates, int pool) {
  namespace m = db::metric;
  const auto trace = by_step(store, run, m::kNoiseTrace);
  const auto trace_se = by_step(store, run, m::kNoiseTraceSe);
  const auto grad_sq = by_step(store, run, m::kNoiseGradSq);
  const auto grad_sq_se = by_step(store, run, m::kNoiseGradSqSe);
  const auto loss = by_step(store, run, m::kTrainLoss);

  std::vector<NoiseScalePoint> points;
  int64_t previous = 0;  // the last update of the previous log window
  int in_pool = 0;
  for (const auto& [step, count] : updates) {
    if (in_pool == 0) {
      points.emplace_back();
      points.back().first_update = previous + 1;
    }
    NoiseScalePoint& p = points.back();
    p.window.add(window_of_means(static_cast<int64_t>(count), at(trace, step), at(trace_se, step),
                                 at(grad_sq, step), at(grad_sq_se, step)));
    p.last_update = step;
    previous = step;
    if (++in_pool == pool) in_pool = 0;
  }
  for (NoiseScalePoint& p : points) {
    p.estimate = estimate_noise_scale(p.window);
    const double l = at(loss, p.last_update);
    if (!std::isnan(l)) p.train_loss = l;
  }
  return points;
}

}  // namespace

std::vector<NoiseScalePoint> noise_scale_curve(const db::Store& store, int64_t run, int pool) {
  if (pool < 1) throw std::invalid_argument("noise scale: --pool must be at least 1");
  const auto updates = by_step(store, run, db::metric::kNoiseUpdates);
  if (updates.empty())
    throw InputError("fathom export noise-scale", 0, "run",
                     "run " + std::to_string(run) +
                         " has no noise.* rows: train it with train.noise_scale: true");
  return pooled_windows(store, run, updates, pool);
}

std::optional<NoiseScalePoint> noise_scale_at(const db::Store& store, int64_t run, double update) {
  const auto updates = by_step(store, run, db::metric::kNoiseUpdates);
  if (updates.empty()) return std::nullopt;
  const std::vector<NoiseScalePoint> windows = pooled_windows(store, run, updates, 1);
  for (size_t i = 0; i < windows.size(); ++i) {
    if (static_cast<double>(windows[i].last_update) < update) continue;
    if (i == 0) return windows[0];
    NoiseScalePoint two = windows[i - 1];
    two.window.add(windows[i].window);
    two.last_update = windows[i].last_update;
    two.train_loss = windows[i].train_loss;
    two.estimate = estimate_noise_scale(two.window);
    return two;
  }
  return std::nullopt;
}

}  // namespace fathom::experiments
