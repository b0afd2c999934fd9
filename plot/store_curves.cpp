#include "plot/store_curves.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <map>
#include <memory>
#include <set>

#include "base/util/error.h"
#include "base/util/strings.h"
#include "db/fork_tags.h"
#include "db/metric_names.h"
#include "db/run_status.h"
#include "experiments/value_at_budget.h"
#include "plot/run_groups.h"

namespace fathom::plot {
namespace {

std::vector<db::RunRecord> selected_runs(const db::Store& store, const CurveQuery& query) {
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
  return runs;
}

// The references that are not among `selected` (drawn once, as the run they are there).
std::vector<db::RunRecord> reference_runs(const db::Store& store, const CurveQuery& query,
                                          const std::vector<db::RunRecord>& selected) {
  std::vector<db::RunRecord> out;
  for (int64_t id : query.references) {
    const auto among = [id](const db::RunRecord& r) { return r.id == id; };
    if (std::any_of(selected.begin(), selected.end(), among) ||
        std::any_of(out.begin(), out.end(), among))
      continue;
    auto run = store.find_run(std::to_string(id));
    if (!run)
      throw InputError(store.path(), 0, "--reference", "no run with id " + std::to_string(id));
    out.push_back(*run);
  }
  return out;
}

// One run's points of one metric, placed on the x axis.
class RunPoints : public MemberPoints {
 public:
  RunPoints(std::vector<db::MetricPoint> points, const RunX& place)
      : points_(std::move(points)), place_(place) {
    for (const auto& p : points_) x_.push_back(place_.at(p));
  }
  size_t size() const override { return points_.size(); }
  int64_t step(size_t i) const override { return points_[i].step; }
  double x(size_t i) const override { return x_[i]; }
  double y(size_t i) const override { return points_[i].value; }
  const std::vector<db::MetricPoint>& points() const { return points_; }
  const RunX& place() const { return place_; }

 private:
  std::vector<db::MetricPoint> points_;
  RunX place_;  // its tokens curve lives in curves_from_store's `tokens`  // reads the run's
                // target_tokens only while x_ is filled
  std::vector<double> x_;
};

// The spikes of one run's raw points (not of the smoothed line), as marks on its curve.
void mark_spikes(const RunPoints& p, const SpikeRule& rule, Curve& curve) {
  std::vector<std::pair<int64_t, double>> raw;
  std::map<int64_t, size_t> index;
  for (size_t i = 0; i < p.size(); ++i) raw.emplace_back(p.step(i), p.y(i)), index[p.step(i)] = i;
  for (const Spike& s : spikes_to_mark(find_spikes(raw, rule), kMaxSpikeMarks)) {
    curve.spike_x.push_back(p.x(index.at(s.step)));
    curve.spike_y.push_back(s.value);
  }
}

// Where a table at `at` reads each drawn run's `metric` (experiments/value_at_budget.h's own
// reading, so a square is never where the table reads nothing): run id -> (update, value) for
// the runs read at it; `diverged` gets those that diverged inside it (their cell counts them
// diverged). Runs short of the budget are in neither.
struct BudgetReadings {
  std::map<int64_t, std::pair<int64_t, double>> read;
  std::set<int64_t> diverged;
};

BudgetReadings read_at_budget(const db::Store& store, const std::vector<db::RunRecord>& runs,
                              const std::string& metric, const experiments::Budget& at) {
  std::vector<experiments::TableRun> table;
  for (const auto& r : runs) {
    experiments::TableRun t;
    t.id = r.id;
    t.status = r.status;
    t.diverged_step = r.diverged_step;
    table.push_back(std::move(t));
  }
  experiments::TableOptions options;
  options.metric = metric;
  options.select_by = metric;
  options.at = at;
  experiments::use_value_at_budget(table, store, options, "--at");
  BudgetReadings out;
  for (const auto& t : table) {
    if (t.status == db::status::kDiverged)
      out.diverged.insert(t.id);
    else if (t.metric && t.metric_step && std::isfinite(*t.metric))
      out.read[t.id] = {*t.metric_step, *t.metric};
  }
  return out;
}

// Per metric: its readings at the query's budget (none without one).
using ReadingsOfMetrics = std::map<std::string, BudgetReadings>;

// The square on a run's curve: where the table read it, if it did.
void mark_read_point(const RunPoints& p, const db::RunRecord& run, const BudgetReadings& readings,
                     Curve& curve) {
  const auto it = readings.read.find(run.id);
  if (it == readings.read.end()) return;
  curve.read_x = p.place().at_step(p.points(), it->second.first);
  curve.read_y = it->second.second;
}

// A group's reading at the budget: the mean of its members' (a table cell's mean over seeds),
// at the mean of where they were read; none where a member diverged inside the budget (the
// cell is a divergence, not a mean) or none was read.
class GroupReading {
 public:
  void add(const RunPoints& p, const db::RunRecord& run, const BudgetReadings& readings) {
    if (readings.diverged.count(run.id)) diverged_ = true;
    const auto it = readings.read.find(run.id);
    if (it == readings.read.end()) return;
    x_ += p.place().at_step(p.points(), it->second.first), y_ += it->second.second, ++n_;
  }
  void mark(Curve& curve) const {
    if (diverged_ || n_ == 0) return;
    curve.read_x = x_ / n_;
    curve.read_y = y_ / n_;
  }

 private:
  double x_ = 0, y_ = 0;
  int n_ = 0;
  bool diverged_ = false;
};

// Each run's points of each metric that it logged, keyed by (index of the run, metric).
using PointsOfRuns = std::map<std::pair<size_t, std::string>, std::unique_ptr<RunPoints>>;

// Each run's points on the x axis, per metric; `tokens[r]` holds run r's target_tokens curve,
// which its points read (with --x tokens).
PointsOfRuns read_points(const db::Store& store, const CurveQuery& query,
                         const std::vector<db::RunRecord>& runs,
                         std::vector<std::vector<db::MetricPoint>>& tokens) {
  PointsOfRuns points;
  for (size_t r = 0; r < runs.size(); ++r) {
    const auto& run = runs[r];
    if (!x_series_metric(query.x).empty())
      tokens[r] = store.metric_series(run.id, x_series_metric(query.x));
    const RunX x(query.x, run.started_at, &tokens[r]);
    std::vector<std::pair<std::string, std::vector<db::MetricPoint>>> curves;
    for (const auto& metric : query.metrics) {
      auto series = store.metric_series(run.id, metric);
      if (!series.empty()) curves.emplace_back(metric, std::move(series));
    }
    // A run with nothing to draw (queued, just started) needs no place on the axis.
    if (!curves.empty() && !x.available())
      throw InputError(store.path(), 0, "--x",
                       "run " + std::to_string(run.id) + " has " + x_unavailable_reason(query.x) +
                           ": use --x update");
    for (auto& [metric, series] : curves)
      points[{r, metric}] = std::make_unique<RunPoints>(std::move(series), x);
  }

  return points;
}

// Grouped: per metric, the groups of runs[first, end) in the order their first run comes.
void add_group_curves(CurveFigure& figure, const CurveQuery& query,
                      const std::vector<db::RunRecord>& runs, const std::vector<Tags>& tags,
                      const std::vector<std::string>& group_keys, const PointsOfRuns& points,
                      const ReadingsOfMetrics& budget_readings, size_t first) {
  const bool label_metric = query.metrics.size() > 1;
  for (size_t m = 0; m < query.metrics.size(); ++m) {
    const std::string& metric = query.metrics[m];
    std::vector<CurveGroup> groups;
    std::vector<GroupReading> readings;
    std::map<std::string, size_t> index;
    for (size_t r = first; r < runs.size(); ++r) {
      auto it = points.find({r, metric});
      if (it == points.end()) continue;
      std::vector<std::string> values;
      for (const auto& key : group_keys)
        values.push_back(run_value(tags[r], runs[r].config_json, key));
      const std::string label = group_label(group_keys, values);
      auto [at, added] = index.try_emplace(label, groups.size());
      if (added) groups.emplace_back(label, query.band), readings.emplace_back();
      if (query.at) readings[at->second].add(*it->second, runs[r], budget_readings.at(metric));
      groups[at->second].add_member(run_short_name(runs[r]), it->second.get(),
                                    runs[r].status == db::status::kDiverged,
                                    !db::status::is_active(runs[r].status));
    }
    for (size_t g = 0; g < groups.size(); ++g) {
      CurveGroup& group = groups[g];
      group.update();
      Curve curve = group.curve(metric);
      readings[g].mark(curve);
      if (label_metric) curve.label += " " + metric;
      figure.curves.push_back(std::move(curve));
    }
  }
}

// Whether a sweep's run name ("sweep/norm=post,seed=1") already states key=value, by the key's
// last part (as sweeps name runs) or whole: the legend then need not say it twice.
bool name_states(const std::string& name, const std::string& key, const std::string& value) {
  const std::string leaf = key.substr(key.rfind('.') + 1);
  for (const std::string& part : split(name.substr(name.rfind('/') + 1), ','))
    if (part == leaf + "=" + value || part == key + "=" + value) return true;
  return false;
}

// One curve per run and metric of runs[first, last); `references`: theirs (CurveQuery).
void add_run_curves(CurveFigure& figure, const CurveQuery& query,
                    const std::vector<db::RunRecord>& runs, const std::vector<Tags>& tags,
                    const PointsOfRuns& points, const ReadingsOfMetrics& budget_readings,
                    size_t first, size_t last, bool references) {
  const bool label_metric = query.metrics.size() > 1;
  const std::string colour_by = references ? "" : query.colour_by;
  for (size_t r = first; r < last; ++r) {
    for (const auto& metric : query.metrics) {
      auto it = points.find({r, metric});
      if (it == points.end()) continue;
      const auto& run = runs[r];
      const RunPoints& p = *it->second;
      Curve curve;
      curve.metric = metric;
      curve.label = std::to_string(run.id) + " " + run.name;
      const std::string key =
          colour_by.empty() ? "" : run_value(tags[r], run.config_json, colour_by);
      if (!colour_by.empty() && !name_states(run.name, colour_by, key))
        curve.label += " (" + colour_by + "=" + key + ")";
      if (const auto origin = db::fork_origin(tags[r]))
        curve.label += " " + db::fork_label(*origin);
      if (references) curve.label += " (reference)";
      curve.reference = references;
      if (label_metric) curve.label += " " + metric;
      curve.colour_key = colour_by.empty() ? "run " + std::to_string(run.id) : key;
      for (size_t i = 0; i < p.size(); ++i) {
        curve.step.push_back(p.x(i));
        curve.value.push_back(p.y(i));
      }
      if (run.diverged_step)
        curve.diverged_step = p.place().at_step(p.points(), *run.diverged_step);
      if (const auto origin = db::fork_origin(tags[r]))
        curve.fork_step = p.place().at_step(p.points(), origin->step);
      if (query.spikes && db::metric::is_spike_metric(metric)) mark_spikes(p, *query.spikes, curve);
      if (query.at) mark_read_point(p, run, budget_readings.at(metric), curve);
      figure.curves.push_back(std::move(curve));
    }
  }
}

}  // namespace

std::string spike_legend(const SpikeRule& rule) {  // over the mean of the points before
  char text[96];
  std::snprintf(text, sizeof text, "spike (> %g sd above the last %d)", rule.k, rule.window);
  return text;
}

std::string run_attribute(const db::Store& store, const db::RunRecord& run,
                          const std::string& key) {
  if (key.empty()) return "";
  return run_value(store.tags(run.id), run.config_json, key);
}

CurveFigure curves_from_store(const db::Store& store, CurveQuery query) {
  // The references first (indices [0, drawn_first)), then the selection: one index space for
  // the points read.
  std::vector<db::RunRecord> selected = selected_runs(store, query);
  const std::vector<int64_t> finished = experiments::finished_runs(selected);
  std::vector<db::RunRecord> runs = reference_runs(store, query, selected);
  const size_t drawn_first = runs.size();
  runs.insert(runs.end(), std::make_move_iterator(selected.begin()),
              std::make_move_iterator(selected.end()));
  std::vector<Tags> tags;
  for (const auto& run : runs) {
    tags.push_back(store.tags(run.id));
    tags.back()[kSweepTag] = run.sweep.empty() ? "(none)" : run.sweep;  // keeps sweeps apart
  }
  // The selection's keys: a reference's own sweep axes would split the selection's groups.
  const std::vector<std::string> group_keys = expand_group_keys(
      query.group_by,
      std::vector<Tags>(tags.begin() + static_cast<std::ptrdiff_t>(drawn_first), tags.end()));
  const bool grouped = !query.group_by.empty();

  CurveFigure figure;
  if (query.at) {
    if (query.at->axis != x_axis_name(query.x))
      throw InputError(store.path(), 0, "--at",
                       "a budget of " + query.at->axis + " is drawn on an x axis of " +
                           query.at->axis + ", not " + x_axis_name(query.x) + ": use --x " +
                           query.at->axis + " (or leave --x out)");
    // A least budget: over the selection's finished runs, not the references beside it.
    query.at = experiments::resolve_least(*query.at, store, finished, "--at");
    figure.budget = BudgetLine{query.at->x, experiments::budget_text(*query.at)};
  }
  figure.smoothing = query.smoothing;
  figure.y.scale = query.log_y ? Scale::Log : Scale::Linear;
  figure.x.label = x_axis_label(query.x);
  figure.x_kind = x_axis_name(query.x);
  if (grouped) figure.band = band_name(query.band);

  // Each run's points on the x axis, per metric (and its target_tokens, which they read).
  std::vector<std::vector<db::MetricPoint>> tokens(runs.size());
  const PointsOfRuns points = read_points(store, query, runs, tokens);
  ReadingsOfMetrics readings;
  if (query.at)
    for (const auto& metric : query.metrics)
      readings[metric] = read_at_budget(store, runs, metric, *query.at);
  add_run_curves(figure, query, runs, tags, points, readings, 0, drawn_first,
                 /*references=*/true);
  if (grouped)
    add_group_curves(figure, query, runs, tags, group_keys, points, readings, drawn_first);
  else
    add_run_curves(figure, query, runs, tags, points, readings, drawn_first, runs.size(), false);
  if (figure.curves.empty()) {
    std::string names;
    for (const auto& m : query.metrics) names += (names.empty() ? "" : ", ") + m;
    throw InputError(store.path(), 0, "--metric", "the selected runs logged no points of " + names);
  }
  for (const auto& c : figure.curves)
    if (!c.spike_x.empty()) figure.spikes_are = spike_legend(*query.spikes);
  return figure;
}

}  // namespace fathom::plot
