#pragma once
// A log window's noise.* rows as TrainingSession::log_noise_scale writes them
// (core/train/training_records.cpp), made from its updates' (tr, |G|^2) estimates: for tests of
// what reads them back (experiments/noise_scale_curve.h, time to target) without training.
#include <cstdint>
#include <utility>
#include <vector>

#include "base/metrics/noise_scale_window.h"
#include "db/metric_names.h"
#include "db/store.h"

namespace fathom::testing {

inline void log_noise_window(db::Store& store, int64_t run, int64_t step,
                             const std::vector<std::pair<double, double>>& updates) {
  NoiseScaleWindow w;
  for (const auto& [trace, grad_sq] : updates) w.add(trace, grad_sq);
  const NoiseScaleEstimate e = estimate_noise_scale(w);
  namespace m = db::metric;
  store.write_metrics(run, {{step, m::kNoiseUpdates, static_cast<double>(w.updates), 0.0},
                            {step, m::kNoiseTrace, e.trace, 0.0},
                            {step, m::kNoiseTraceSe, e.trace_se, 0.0},
                            {step, m::kNoiseGradSq, e.grad_sq, 0.0},
                            {step, m::kNoiseGradSqSe, e.grad_sq_se, 0.0},
                            {step, m::kNoiseBSimple, e.b_simple, 0.0}});
}

}  // namespace fathom::testing
