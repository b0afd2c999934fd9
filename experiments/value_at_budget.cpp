#include "experiments/value_at_budget.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "base/config/budget_text.h"
#include "base/util/error.h"
#include "db/metric_names.h"
#include "db/run_status.h"
#include "db/series_at_step.h"

namespace fathom::experiments {
namespace {

// x values are sums of doubles: equal to the budget within its tolerance (rounding, unless
// asked) counts as at it, both inside it and reaching it.
bool within(double x, const Budget& b) { return x <= b.x * (1 + b.tolerance); }
bool reaches(double x, const Budget& b) { return x >= b.x * (1 - b.tolerance); }

// "#3, #7, #9 and 2 more".
std::string run_list(const std::vector<int64_t>& ids) {
  std::string out;
  const size_t shown = std::min<size_t>(ids.size(), 5);
  for (size_t i = 0; i < shown; ++i) out += (i ? ", #" : "#") + std::to_string(ids[i]);
  if (ids.size() > shown) out += " and " + std::to_string(ids.size() - shown) + " more";
  return out;
}

std::string runs_word(size_t n) { return n == 1 ? "1 run" : std::to_string(n) + " runs"; }

// The last point of `points` at or before the budget; nullopt when none is.
std::optional<db::MetricPoint> last_inside(const std::vector<db::MetricPoint>& points,
                                           const std::vector<db::MetricPoint>& xs,
                                           const Budget& b) {
  std::optional<db::MetricPoint> last;
  for (const auto& p : points) {
    const double x =
        b.axis == "update" ? static_cast<double>(p.step) : db::series_at_step(xs, p.step);
    if (!within(x, b)) break;
    last = p;
  }
  return last;
}

// "2 runs read at 80 % and 67 % of the budget (#3, #4): ...", the least share first.
std::string read_early_note(std::vector<std::pair<int64_t, double>> read, const std::string& metric,
                            const Budget& b) {
  std::stable_sort(read.begin(), read.end(),
                   [](const auto& a, const auto& b) { return a.second < b.second; });
  std::vector<int64_t> ids;
  for (const auto& [id, share] : read) ids.push_back(id);
  char least[16], most[16];
  std::snprintf(least, sizeof least, "%.0f", 100 * read.front().second);
  std::snprintf(most, sizeof most, "%.0f", 100 * read.back().second);
  const std::string range = std::string("at ") + least +
                            (std::string(least) == most ? "" : std::string("-") + most) + " %";
  return runs_word(read.size()) + " read " + range + " of the budget, " +
         (read.size() == 1 ? "its" : "their") + " last " + metric + " inside it (" + run_list(ids) +
         "): compared having trained that much less; train.valid_at: [" + budget_setting(b) +
         "] validates each run just inside it";
}

}  // namespace

Budget parse_budget(const std::string& text, const std::string& command) {
  std::string why;
  const std::optional<BudgetText> b = parse_budget_text(text, /*allow_least=*/true, why);
  if (!b) throw InputError(command, 0, "--at", why);
  if (b->least) return {b->axis, 0, b->axis == "update" ? 1e-12 : kLeastTolerance, /*least=*/true};
  return {b->axis, b->x};
}

std::vector<int64_t> finished_runs(const std::vector<db::RunRecord>& runs) {
  std::vector<int64_t> ids;
  for (const auto& r : runs)
    if (r.status == db::status::kFinished) ids.push_back(r.id);
  return ids;
}

std::vector<int64_t> finished_runs(const std::vector<TableRun>& runs) {
  std::vector<int64_t> ids;
  for (const auto& r : runs)
    if (r.status == db::status::kFinished) ids.push_back(r.id);
  return ids;
}

Budget resolve_least(const Budget& b, const db::Store& store, const std::vector<int64_t>& finished,
                     const std::string& command) {
  if (!b.least) return b;
  const std::string& x_metric =
      b.axis == "compute" ? db::metric::kTrainFlops : db::metric::kTargetTokens;
  std::optional<double> least;
  for (const int64_t id : finished) {
    // The curve's last point alone (as use_last_of_run reads it), not the whole curve.
    int64_t step = store.last_metric_step(id, x_metric);
    // A run's last update is also its losses' last (one stored before target tokens were).
    for (const std::string& loss : {db::metric::kTrainLoss, db::metric::kValidLoss})
      if (step < 0 && b.axis == "update") step = store.last_metric_step(id, loss);
    if (step < 0) continue;
    double x = static_cast<double>(step);
    if (b.axis != "update") {
      const auto xs = store.metric_points_after(id, x_metric, step - 1);
      if (xs.empty()) continue;
      x = xs.back().value;
    }
    if (x > 0) least = least ? std::min(*least, x) : x;
  }
  if (!least)
    throw InputError(command, 0, "--at",
                     b.axis + "=least: no finished run has a " +
                         (b.axis == "update" ? x_metric + ", train_loss or valid_loss" : x_metric) +
                         " curve to take the least of");
  Budget definite = b;
  definite.x = *least;
  definite.least = false;
  definite.found_least = true;
  return definite;
}

Budget budget_share(const Budget& b, double share) {
  if (share >= 1) return b;
  Budget out = b;
  const double unit = std::pow(10.0, std::floor(std::log10(b.x * share)) - 2);
  out.x = std::floor(b.x * share / unit) * unit;
  out.tolerance = Budget{}.tolerance;
  out.least = false;
  out.found_least = false;
  return out;
}

std::string budget_setting(const Budget& b) {
  char text[64];
  std::snprintf(text, sizeof text, "%s=%.6g", b.axis.c_str(), b.x);
  return text;
}

std::string budget_argument(const Budget& b) {
  return b.least || b.found_least ? b.axis + "=least" : budget_setting(b);
}

std::string budget_text(const Budget& b) {
  char number[32];
  std::snprintf(number, sizeof number, "%.6g", b.x);
  std::string slack;  // shown where it is more than rounding
  if (b.tolerance >= 1e-6) {
    char percent[32];
    std::snprintf(percent, sizeof percent, " (within %.3g %%)", 100 * b.tolerance);
    slack = percent;
  }
  if (b.axis == "compute") return std::string("compute <= ") + number + " FLOPs" + slack;
  if (b.axis == "tokens") return std::string("target tokens <= ") + number + slack;
  return std::string("update <= ") + number + slack;
}

std::optional<Budget> budget_option(const std::string& text, const std::string& command) {
  if (text.empty()) return std::nullopt;
  return parse_budget(text, command);
}

RunReading run_reading_named(const std::string& value, const std::string& at,
                             const std::string& command) {
  RunReading reading(run_value_named(value, command));
  reading.at = budget_option(at, command);
  return reading;
}

const std::vector<db::MetricPoint>& CurveCache::series(const db::Store& store, int64_t run,
                                                       const std::string& metric) {
  auto [it, added] = curves_.try_emplace({run, metric});
  if (added) it->second = store.metric_series(run, metric);
  return it->second;
}

std::vector<std::string> read_run_values(std::vector<TableRun>& runs, const db::Store& store,
                                         TableOptions& options, const std::string& command,
                                         CurveCache* cache) {
  if (options.at && options.at->least) {
    options.at = resolve_least(*options.at, store, finished_runs(runs), command);
    auto notes = use_value_at_budget(runs, store, options, command, cache);
    notes.insert(notes.begin(), budget_text(*options.at) + ": the least any finished run reached");
    return notes;
  }
  if (options.at) return use_value_at_budget(runs, store, options, command, cache);
  use_run_value(runs, store, options);
  return {};
}

std::vector<std::string> read_run_values(std::vector<TableRun>& runs, const db::Store& store,
                                         const std::string& metric, RunReading& reading,
                                         const std::string& command) {
  TableOptions o;
  o.metric = metric;
  o.value = reading.value;
  o.at = reading.at;
  auto notes = read_run_values(runs, store, o, command);
  reading.at = o.at;
  return notes;
}

std::vector<std::string> use_value_at_budget(std::vector<TableRun>& runs, const db::Store& store,
                                             const TableOptions& options,
                                             const std::string& command, CurveCache* cache) {
  const Budget& b = *options.at;
  // A run's curve, from the cache where there is one.
  auto curve = [&](int64_t run, const std::string& metric) {
    return cache ? cache->series(store, run, metric) : store.metric_series(run, metric);
  };
  if (options.metric.rfind("test_", 0) == 0)
    throw InputError(command, 0, "--at",
                     options.metric +
                         " is measured once, at the end of training: it has no curve to cut at "
                         "a budget (a valid_* or train_* metric has)");
  // The update axis reads steps; target_tokens still says how far a run got.
  const std::string& x_metric =
      b.axis == "compute" ? db::metric::kTrainFlops : db::metric::kTargetTokens;
  std::vector<int64_t> no_axis, short_of, no_point, ended_after;
  std::vector<std::pair<int64_t, double>> read_early;  // (run, share of the budget) < kReadClose
  for (TableRun& r : runs) {
    const std::vector<db::MetricPoint> xs = curve(r.id, x_metric);
    const std::vector<db::MetricPoint> points = curve(r.id, options.metric);
    if (b.axis != "update" && xs.empty()) {
      // A run that logged nothing yet (queued) is short of the budget, not an older run.
      (points.empty() ? short_of : no_axis).push_back(r.id);
      r.metric.reset();  // left out: its status still says what became of it
      continue;
    }
    // Where on the axis an update lies, and how far the run got.
    auto x_of = [&](int64_t step) {
      return b.axis == "update" ? static_cast<double>(step) : db::series_at_step(xs, step);
    };
    const auto& progress = xs.empty() ? points : xs;
    const double farthest = progress.empty() ? 0 : x_of(progress.back().step);
    // A divergence inside the budget is the run's result there (the cell counts it).
    if (r.status == db::status::kDiverged &&
        (!r.diverged_step || within(x_of(*r.diverged_step), b)))
      continue;
    const bool reached = reaches(farthest, b);
    const std::optional<db::MetricPoint> at = reached ? last_inside(points, xs, b) : std::nullopt;
    if (!at) {
      (reached ? no_point : short_of).push_back(r.id);
      r.metric.reset();
      continue;
    }
    r.metric = std::isfinite(at->value) ? at->value : std::numeric_limits<double>::infinity();
    r.metric_step = at->step;
    if (x_of(at->step) < kReadClose * b.x) read_early.emplace_back(r.id, x_of(at->step) / b.x);
    // A variant is chosen on what it had reached by the budget, never on what it reached later:
    // the select_by value is cut at the budget too, also where it is the metric itself.
    const auto chosen_on = options.select_by == options.metric
                               ? at
                               : last_inside(curve(r.id, options.select_by), xs, b);
    if (chosen_on && std::isfinite(chosen_on->value))
      r.final_metrics[options.select_by] = chosen_on->value;
    else
      r.final_metrics.erase(options.select_by);
    if (r.status != db::status::kFinished) ended_after.push_back(r.id);
    r.status = db::status::kFinished;  // at the budget it was training
    r.diverged_step.reset();
    r.stopped_early_at.reset();
  }
  std::vector<std::string> notes;
  if (!no_axis.empty())
    notes.push_back(runs_word(no_axis.size()) + " without a " + x_metric +
                    " curve (trained before Fathom logged it), left out: " + run_list(no_axis));
  if (!short_of.empty())
    notes.push_back(runs_word(short_of.size()) + " short of " + budget_text(b) + ", left out: " +
                    run_list(short_of) + " (ended or stopped before it, or not there yet)");
  if (!no_point.empty())
    notes.push_back(runs_word(no_point.size()) + " without a " + options.metric +
                    " point inside the budget, left out: " + run_list(no_point));
  if (!read_early.empty()) notes.push_back(read_early_note(read_early, options.metric, b));
  if (!ended_after.empty())
    notes.push_back(runs_word(ended_after.size()) +
                    " diverged, failed or still running past the budget, counted at it: " +
                    run_list(ended_after));
  return notes;
}

}  // namespace fathom::experiments
