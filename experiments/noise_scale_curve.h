#pragma once
// The trainer's gradient noise scale over training (train.noise_scale; base/metrics/
// noise_scale_window.h), read back from a run's noise.* rows: each log window as it was logged,
// or `pool` consecutive windows pooled -- their updates' estimates together, as one window of
// them all -- for a tighter interval where a log window's is wide. `fathom export noise-scale`.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/metrics/noise_scale_window.h"
#include "db/store.h"

namespace fathom::experiments {

struct NoiseScalePoint {
  int64_t first_update = 0, last_update = 0;  // the updates the pooled windows cover
  NoiseScaleWindow window;
  NoiseScaleEstimate estimate;
  std::optional<double> train_loss;  // the run's logged training loss at last_update
};

// InputError (`fathom export noise-scale`, the field "run") for a run without noise.* rows --
// trained without train.noise_scale; pool < 1 is std::invalid_argument. A last group of fewer
// than `pool` windows is pooled as it is.
std::vector<NoiseScalePoint> noise_scale_curve(const db::Store& store, int64_t run, int pool);

// The noise scale where a run was at `update` (a time to target's, fractional): the log window
// holding it pooled with the one before -- the windows a comparison of B_crit with B_simple
// reads (McCandlish et al. 2018 measure B_simple at the loss whose steps they count). nullopt
// for a run without noise.* rows or without a window reaching `update`.
std::optional<NoiseScalePoint> noise_scale_at(const db::Store& store, int64_t run, double update);

// A run's noise.* curves (and train_loss), each by step: what the functions above read, for a
// caller that reads many runs' curves at once (Store::poll_curves: one round trip to a server).
struct NoiseSeries {
  std::map<int64_t, double> updates, trace, trace_se, grad_sq, grad_sq_se, train_loss;
};
// The curves NoiseSeries holds besides `updates`, in its members' order.
const std::vector<std::string>& noise_series_names();
// Fills the member named by noise_series_names()[i] (or `updates` for noise.updates).
void set_noise_series(NoiseSeries& s, const std::string& name,
                      const std::vector<db::MetricPoint>& points);
std::optional<NoiseScalePoint> noise_scale_at(const NoiseSeries& s, double update);

}  // namespace fathom::experiments
