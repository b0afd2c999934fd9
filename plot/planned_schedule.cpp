#include "plot/planned_schedule.h"

#include <algorithm>
#include <set>

#include "base/config/config_io.h"
#include "base/config/lr_schedule.h"
#include "db/metric_names.h"

namespace fathom::plot {

std::optional<Curve> planned_lr_curve(const db::RunRecord& run, int points) {
  if (run.config_yaml.empty()) return std::nullopt;
  RunConfig config;
  try {
    config = load_config_string(run.config_yaml, "run " + std::to_string(run.id), "");
    lr_schedule(config.train.schedule);  // a name this build does not know: no plan
  } catch (const std::exception&) {
    return std::nullopt;
  }
  const TrainConfig& t = config.train;
  const int64_t last = std::max<int64_t>(1, t.max_updates);
  std::set<int64_t> updates = {1, last};
  const int64_t stride = std::max<int64_t>(1, last / std::max(1, points));
  for (int64_t u = 1; u <= last; u += stride) updates.insert(u);
  // The corners of the schedule, so that no sampling cuts them off.
  for (int64_t u : {static_cast<int64_t>(t.warmup), decay_start(t) - 1, decay_start(t)})
    if (u >= 1 && u <= last) updates.insert(u);
  Curve c;
  c.label = "planned (" + t.schedule + ")";
  c.metric = db::metric::kLearningRate;
  for (int64_t u : updates) {
    c.step.push_back(static_cast<double>(u));
    c.value.push_back(learning_rate(t, u));
  }
  return c;
}

}  // namespace fathom::plot
