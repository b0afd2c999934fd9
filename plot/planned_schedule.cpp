#include "plot/planned_schedule.h"

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
  Curve c;
  c.label = "planned (" + t.schedule + ")";
  c.metric = db::metric::kLearningRate;
  for (int64_t u : schedule_updates(t, points)) {
    c.step.push_back(static_cast<double>(u));
    c.value.push_back(learning_rate(t, u));
  }
  return c;
}

}  // namespace fathom::plot
