#include "plot/store_curves.h"

#include "db/run_json.h"

#include <sstream>

#include "core/util/error.h"

namespace fathom::plot {
namespace {

}  // namespace

std::string run_attribute(const db::Store& store, const db::RunRecord& run, const std::string& key) {
  if (key.empty()) return "";
  const auto tags = store.tags(run.id);
  if (auto it = tags.find("axis." + key); it != tags.end()) return it->second;
  if (auto it = tags.find(key); it != tags.end()) return it->second;
  return db::config_value(run.config_json, key);
}

CurveFigure curves_from_store(const db::Store& store, const CurveQuery& query) {
  std::vector<db::RunRecord> runs;
  if (!query.sweep.empty()) {
    runs = store.list_runs(query.sweep);
    if (runs.empty())
      throw InputError(store.path(), 0, "--sweep", "no runs in sweep '" + query.sweep + "'");
  }
  for (int64_t id : query.runs) {
    auto run = store.find_run(std::to_string(id));
    if (!run) throw InputError(store.path(), 0, "--runs", "no run with id " + std::to_string(id));
    runs.push_back(*run);
  }
  if (query.metrics.empty()) throw InputError("", 0, "--metric", "name at least one metric");

  CurveFigure figure;
  figure.smoothing = query.smoothing;
  figure.y.scale = query.log_y ? Scale::Log : Scale::Linear;
  const bool label_metric = query.metrics.size() > 1;
  for (const auto& run : runs) {
    const std::string key = run_attribute(store, run, query.colour_by);
    for (const auto& metric : query.metrics) {
      const auto points = store.metric_series(run.id, metric);
      if (points.empty()) continue;
      Curve curve;
      curve.metric = metric;
      curve.label = std::to_string(run.id) + " " + run.name;
      if (!query.colour_by.empty()) curve.label += " (" + query.colour_by + "=" + key + ")";
      if (label_metric) curve.label += " " + metric;
      curve.colour_key = query.colour_by.empty() ? "run " + std::to_string(run.id) : key;
      for (const auto& p : points) {
        curve.step.push_back(static_cast<double>(p.step));
        curve.value.push_back(p.value);
      }
      if (run.diverged_step) curve.diverged_step = static_cast<double>(*run.diverged_step);
      figure.curves.push_back(std::move(curve));
    }
  }
  if (figure.curves.empty()) {
    std::string names;
    for (const auto& m : query.metrics) names += (names.empty() ? "" : ", ") + m;
    throw InputError(store.path(), 0, "--metric", "the selected runs logged no points of " + names);
  }
  return figure;
}

}  // namespace fathom::plot
