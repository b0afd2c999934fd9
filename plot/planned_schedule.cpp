#include "plot/planned_schedule.h"

#include <string>

#include "base/config/config_io.h"
#include "base/config/lr_schedule.h"
#include "db/metric_names.h"

namespace fathom::plot {

std::optional<Curve> planned_lr_curve(const db::RunRecord& run, int points, int64_t after) {
  if (run.config_yaml.empty()) return std::nullopt;
  RunConfig config;
  try {
    config = load_config_string(run.config_yaml, "run " + std::to_string(run.id), "");
    lr_schedule(config.train.schedule);  // a name this build does not know: no plan
  } catch (const std::exception&) {
    return std::nullopt;
  }
  const TrainConfig& t = config.train;
  Curve c;
  c.label = "planned (" + t.schedule +
            (after > 0 ? ", after update " + std::to_string(after) : std::string()) + ")";
  c.metric = db::metric::kLearningRate;
  auto add = [&](int64_t u) {
    c.step.push_back(static_cast<double>(u));
    c.value.push_back(learning_rate(t, u));
  };
  if (after > 0 && after < t.max_updates) add(after + 1);  // its first update, always drawn
  for (int64_t u : schedule_updates(t, points))
    if (u > after + (after > 0 ? 1 : 0)) add(u);
  if (c.step.empty()) return std::nullopt;
  return c;
}

}  // namespace fathom::plot
