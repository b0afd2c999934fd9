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

std::map<int64_t, double> by_step(const std::vector<db::MetricPoint>& points) {
  std::map<int64_t, double> out;
  for (const auto& p : points) out[p.step] = p.value;
  return out;
}

std::map<int64_t, double> by_step(const db::Store& store, int64_t run, const std::string& name) {
  return by_step(store.metric_series(run, name));
}

// The series of a run besides noise.updates, read one by one.
NoiseSeries read_series(const db::Store& store, int64_t run, std::map<int64_t, double> updates) {
  NoiseSeries s;
  for (const auto& name : noise_series_names())
    set_noise_series(s, name, store.metric_series(run, name));
  s.updates = std::move(updates);
  return s;
}

double at(const std::map<int64_t, double>& series, int64_t step) {
  const auto it = series.find(step);
  return it == series.end() ? NAN : it->second;
}

// The windows of s.updates (noise.updates by step), `pool` at a time.
std::vector<NoiseScalePoint> pooled_windows(const NoiseSeries& s, int pool) {
  const auto& [updates, trace, trace_se, grad_sq, grad_sq_se, loss] = s;
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
  return pooled_windows(read_series(store, run, updates), pool);
}

const std::vector<std::string>& noise_series_names() {
  namespace m = db::metric;
  static const std::vector<std::string> names{m::kNoiseTrace, m::kNoiseTraceSe, m::kNoiseGradSq,
                                              m::kNoiseGradSqSe, m::kTrainLoss};
  return names;
}

void set_noise_series(NoiseSeries& s, const std::string& name,
                      const std::vector<db::MetricPoint>& points) {
  namespace m = db::metric;
  std::map<int64_t, double>* to = name == m::kNoiseUpdates    ? &s.updates
                                  : name == m::kNoiseTrace    ? &s.trace
                                  : name == m::kNoiseTraceSe  ? &s.trace_se
                                  : name == m::kNoiseGradSq   ? &s.grad_sq
                                  : name == m::kNoiseGradSqSe ? &s.grad_sq_se
                                  : name == m::kTrainLoss     ? &s.train_loss
                                                              : nullptr;
  if (!to) throw std::invalid_argument("noise scale: no series named " + name);
  *to = by_step(points);
}

std::optional<NoiseScalePoint> noise_scale_at(const db::Store& store, int64_t run, double update) {
  auto updates = by_step(store, run, db::metric::kNoiseUpdates);
  if (updates.empty()) return std::nullopt;
  return noise_scale_at(read_series(store, run, std::move(updates)), update);
}

std::optional<NoiseScalePoint> noise_scale_at(const NoiseSeries& s, double update) {
  if (s.updates.empty()) return std::nullopt;
  const std::vector<NoiseScalePoint> windows = pooled_windows(s, 1);
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
