#include "db/update_rate.h"

#include <limits>

#include <nlohmann/json.hpp>

#include "base/metrics/statistics.h"
#include "db/metric_names.h"
#include "db/store.h"

namespace fathom::db {
int64_t log_every_of(const RunRecord& run) {
  const auto config = nlohmann::json::parse(run.config_json, nullptr, /*allow_exceptions=*/false);
  if (!config.is_object() || !config.contains("train") || !config["train"].is_object()) return 10;
  const auto& every = config["train"]["log_every"];
  return every.is_number_integer() && every.get<int64_t>() > 0 ? every.get<int64_t>() : 10;
}

int64_t max_updates_of(const RunRecord& run) {
  const auto config = nlohmann::json::parse(run.config_json, nullptr, /*allow_exceptions=*/false);
  if (!config.is_object() || !config.contains("train") || !config["train"].is_object()) return 0;
  const auto& max = config["train"]["max_updates"];
  return max.is_number_integer() ? max.get<int64_t>() : 0;
}

std::optional<double> seconds_per_update(const std::vector<MetricPoint>& points) {
  std::vector<double> rates;
  for (size_t i = 1; i < points.size(); ++i) {
    const int64_t steps = points[i].step - points[i - 1].step;
    const double seconds = points[i].wall_time - points[i - 1].wall_time;
    if (steps > 0 && seconds > 0) rates.push_back(seconds / static_cast<double>(steps));
  }
  return median(std::move(rates));
}

std::map<int64_t, double> seconds_per_update_by_run(
    const std::map<int64_t, std::vector<MetricPoint>>& points_by_run) {
  std::map<int64_t, double> rates;
  for (const auto& [run, points] : points_by_run)
    if (const auto rate = seconds_per_update(points)) rates[run] = *rate;
  return rates;
}

namespace {
// The step after which a run's last kRateIntervals + 1 logged points lie, its curve ending at
// `last`.
int64_t rate_window_after(const RunRecord& run, int64_t last) {
  return last - kRateIntervals * log_every_of(run) - 1;
}
}  // namespace

std::vector<MetricPoint> recent_train_losses(const Store& store, const RunRecord& run) {
  const int64_t last = store.last_metric_step(run.id, metric::kTrainLoss);
  if (last < 0) return {};
  return store.metric_points_after(run.id, metric::kTrainLoss, rate_window_after(run, last));
}

std::map<int64_t, std::vector<MetricPoint>> recent_train_losses(
    const Store& store, const std::vector<RunRecord>& runs) {
  std::map<int64_t, std::vector<MetricPoint>> out;
  if (runs.empty()) return out;
  std::vector<CurveRequest> ends;  // where each curve ends: no points after the largest step
  for (const auto& run : runs)
    ends.push_back({run.id, metric::kTrainLoss, std::numeric_limits<int64_t>::max()});
  const auto ended = store.poll_curves(ends);
  std::vector<CurveRequest> tails;
  for (size_t i = 0; i < runs.size(); ++i)
    if (ended[i].last_step >= 0)
      tails.push_back(
          {runs[i].id, metric::kTrainLoss, rate_window_after(runs[i], ended[i].last_step)});
  if (tails.empty()) return out;
  const auto read = store.poll_curves(tails);
  for (size_t i = 0; i < tails.size(); ++i)
    if (!read[i].points.empty()) out[tails[i].run] = read[i].points;
  return out;
}

std::optional<double> recent_seconds_per_update(const Store& store, const RunRecord& run) {
  return seconds_per_update(recent_train_losses(store, run));
}

}  // namespace fathom::db
