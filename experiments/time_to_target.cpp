// Time to a target and the critical batch fit (experiments/time_to_target.h).
#include "experiments/time_to_target.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "base/metrics/statistics.h"
#include "base/util/error.h"
#include "db/metric_names.h"
#include "db/metric_presentation.h"
#include "experiments/comparison_table.h"
#include "experiments/noise_scale_curve.h"
#include "experiments/sweep_runs.h"

namespace fathom::experiments {
namespace {

const std::string kCommand = "fathom export reach";

// A run's value of an axis (composite_value); "" for no axis (one column).
std::optional<std::string> axis_value(const TableRun& run, const std::string& axis) {
  if (axis.empty()) return std::string();
  return composite_value(run.axes, axis);
}

struct RunReach {
  std::optional<double> updates;
  double tokens_per_update = NAN;  // its last target_tokens over that point's update
  double b_simple = NAN;           // where it got there (train.noise_scale's runs)
};

// Runs whose curves are read in one Store::poll_curves (one round trip to a server store):
// enough that a lab's 16,384 runs take a few dozen, few enough that a chunk's curves stay small.
constexpr size_t kRunsPerRead = 256;

// Each of `runs`' time to target, tokens per update and B_simple there, in their order: their
// curve of the metric, target_tokens and noise.updates read at once, then the other noise.*
// curves of those that logged them and got there.
std::vector<RunReach> read_reaches(const db::Store& store, const std::vector<int64_t>& runs,
                                   const ReachOptions& o, bool lower) {
  namespace m = db::metric;
  std::vector<RunReach> out(runs.size());
  std::vector<db::CurveRequest> first;
  for (int64_t run : runs)
    for (const std::string& name : {o.metric, m::kTargetTokens, m::kNoiseUpdates})
      first.push_back({run, name, -1});
  const auto got = store.poll_curves(first);
  std::vector<NoiseSeries> noise(runs.size());
  std::vector<db::CurveRequest> more;
  std::vector<size_t> more_of;  // the run (index) of each of `more`
  for (size_t i = 0; i < runs.size(); ++i) {
    RunReach& r = out[i];
    r.updates = first_reach(got[3 * i].points, o.target, lower);
    const auto& tokens = got[3 * i + 1].points;
    if (!tokens.empty() && tokens.back().step > 0)
      r.tokens_per_update = tokens.back().value / static_cast<double>(tokens.back().step);
    if (!r.updates || got[3 * i + 2].points.empty()) continue;
    set_noise_series(noise[i], m::kNoiseUpdates, got[3 * i + 2].points);
    for (const auto& name : noise_series_names()) {
      more.push_back({runs[i], name, -1});
      more_of.push_back(i);
    }
  }
  const auto rest = store.poll_curves(more);
  for (size_t k = 0; k < more.size(); ++k)
    set_noise_series(noise[more_of[k]], more[k].name, rest[k].points);
  for (size_t i = 0; i < runs.size(); ++i)
    if (!noise[i].updates.empty())
      if (const auto at = noise_scale_at(noise[i], *out[i].updates))
        out[i].b_simple = at->estimate.b_simple;  // infinite where |G|^2 is not positive
  return out;
}

// Mean and 95 % t half-width (NaN under two values).
std::pair<double, double> mean_ci(const std::vector<double>& v) {
  const SampleSummary s = summarize(v);
  return {s.mean, t_interval_half_width(s).value_or(NAN)};
}

}  // namespace

std::optional<double> first_reach(const std::vector<db::MetricPoint>& curve, double target,
                                  bool lower_is_better) {
  auto at = [&](double v) { return lower_is_better ? v <= target : v >= target; };
  const db::MetricPoint* before = nullptr;
  for (const auto& p : curve) {
    if (!std::isfinite(p.value)) continue;
    if (at(p.value)) {
      if (!before) return static_cast<double>(p.step);
      const double share = (before->value - target) / (before->value - p.value);
      return static_cast<double>(before->step) + share * static_cast<double>(p.step - before->step);
    }
    before = &p;
  }
  return std::nullopt;
}

ReachTable reach_table(const db::Store& store, const std::string& sweep, const ReachOptions& o) {
  return reach_table(store, select_sweep_runs(store, sweep, o.where, kCommand), sweep, o);
}

namespace {

// The runs of a table placed in their cells: rows and columns in order of first appearance,
// each placed run with its cell, and how many were left out and why.
struct Placement {
  std::vector<std::string> row_order, col_order;
  std::vector<int64_t> runs;                                 // those with the table's axes
  std::vector<std::pair<std::string, std::string>> cell_of;  // each one's (row, column)
  int skipped = 0, lacking = 0;  // not finished or diverged; without the axes
};

Placement place_runs(const db::Store& store, const SweepRuns& selected, const ReachOptions& o) {
  Placement p;
  const auto whole = [](const db::RunRecord& r) {
    return r.status == "finished" || r.status == "diverged";
  };
  std::vector<int64_t> ids;
  for (const auto& rec : selected.runs)
    if (whole(rec))
      ids.push_back(rec.id);
    else
      ++p.skipped;  // running, failed, cancelled: not yet (or never) a whole curve
  const auto tags = store.listing_tags(ids);  // in one read
  for (const auto& rec : selected.runs) {
    if (!whole(rec)) continue;
    const auto it = tags.find(rec.id);
    const TableRun run =
        table_run(rec, it == tags.end() ? std::map<std::string, std::string>{} : it->second,
                  o.metric, {o.rows, o.cols});
    const auto row = axis_value(run, o.rows), col = axis_value(run, o.cols);
    if (!row || !col) {
      ++p.lacking;
      continue;
    }
    if (std::find(p.row_order.begin(), p.row_order.end(), *row) == p.row_order.end())
      p.row_order.push_back(*row);
    if (std::find(p.col_order.begin(), p.col_order.end(), *col) == p.col_order.end())
      p.col_order.push_back(*col);
    p.runs.push_back(rec.id);
    p.cell_of.emplace_back(*row, *col);
  }
  return p;
}

}  // namespace

ReachTable reach_table(const db::Store& store, const SweepRuns& selected, const std::string& sweep,
                       const ReachOptions& o) {
  const bool lower =
      o.lower_is_better.value_or(!db::metric::higher_is_better(o.metric).value_or(false));
  const Placement placed = place_runs(store, selected, o);
  const auto& [row_order, col_order, runs, cell_of, skipped, lacking] = placed;
  std::map<std::pair<std::string, std::string>, std::vector<RunReach>> groups;
  for (size_t from = 0; from < runs.size(); from += kRunsPerRead) {
    const size_t to = std::min(runs.size(), from + kRunsPerRead);
    const auto reaches =
        read_reaches(store, std::vector<int64_t>(runs.begin() + from, runs.begin() + to), o, lower);
    for (size_t i = from; i < to; ++i) groups[cell_of[i]].push_back(reaches[i - from]);
  }
  if (groups.empty())
    throw InputError(kCommand, 0, lacking ? "--rows" : "--sweep",
                     lacking ? "no finished run of '" + sweep + "' has the axes '" + o.rows +
                                   (o.cols.empty() ? "" : "' and '" + o.cols) + "'"
                             : "no finished or diverged run of '" + sweep + "'");
  ReachTable t;
  for (const auto& row : row_order) {
    std::optional<size_t> best;
    for (const auto& col : col_order) {
      auto it = groups.find({row, col});
      if (it == groups.end()) continue;
      ReachCell c{row, col, static_cast<int>(it->second.size()), 0, NAN, NAN, NAN, NAN, NAN};
      std::vector<double> updates, tokens, per_update, b_simple;
      for (const auto& r : it->second) {
        c.run_updates.push_back(r.updates.value_or(NAN));
        c.run_b_simple.push_back(r.updates ? r.b_simple : NAN);
        if (std::isfinite(r.tokens_per_update)) per_update.push_back(r.tokens_per_update);
        if (!r.updates) continue;
        ++c.reached;
        updates.push_back(*r.updates);
        tokens.push_back(*r.updates * r.tokens_per_update);
        if (!std::isnan(r.b_simple)) b_simple.push_back(r.b_simple);
      }
      if (!per_update.empty()) c.tokens_per_update = summarize(per_update).mean;
      if (!b_simple.empty()) c.b_simple = summarize(b_simple).mean;
      c.b_simple_runs = static_cast<int>(b_simple.size());
      if (!updates.empty()) {
        std::tie(c.updates, c.updates_ci95) = mean_ci(updates);
        std::tie(c.tokens, c.tokens_ci95) = mean_ci(tokens);
      }
      t.cells.push_back(c);
      if (c.reached == c.runs && (!best || c.updates < t.cells[*best].updates))
        best = t.cells.size() - 1;
    }
    if (best) t.best.push_back(*best);
  }
  if (auto note = selected.note()) t.notes.push_back(*note);
  if (skipped)
    t.notes.push_back(std::to_string(skipped) +
                      " runs left out: neither finished nor diverged (no whole curve yet)");
  if (lacking)
    t.notes.push_back(std::to_string(lacking) + " runs left out: without the table's axes");
  return t;
}

std::optional<CriticalBatchFit> fit_critical_batch(const std::vector<double>& batch,
                                                   const std::vector<double>& updates) {
  const size_t n = batch.size();
  if (n < 3 || updates.size() != n) return std::nullopt;
  double mx = 0, my = 0;
  for (size_t i = 0; i < n; ++i) mx += 1 / batch[i] / n, my += updates[i] / n;
  double sxx = 0, sxy = 0, syy = 0;
  for (size_t i = 0; i < n; ++i) {
    const double dx = 1 / batch[i] - mx, dy = updates[i] - my;
    sxx += dx * dx, sxy += dx * dy, syy += dy * dy;
  }
  if (!(sxx > 0)) return std::nullopt;  // one batch size only
  const double slope = sxy / sxx, intercept = my - slope * mx;
  CriticalBatchFit f;
  f.points = static_cast<int>(n);
  f.s_min = intercept;
  f.b_crit = slope / intercept;
  f.r2 = syy > 0 ? sxy * sxy / (sxx * syy) : 1.0;
  f.diminishing = intercept > 0 && slope > 0;
  return f;
}

std::optional<double> target_every_run_reached(const db::Store& store, const SweepRuns& selected,
                                               const std::string& metric,
                                               std::optional<bool> lower_is_better) {
  const bool lower =
      lower_is_better.value_or(!db::metric::higher_is_better(metric).value_or(false));
  std::vector<db::CurveRequest> finished;  // a diverged run need not get anywhere
  for (const auto& rec : selected.runs)
    if (rec.status == "finished") finished.push_back({rec.id, metric, -1});
  std::optional<double> target;
  for (size_t from = 0; from < finished.size(); from += kRunsPerRead) {
    const auto curves = store.poll_curves(std::vector<db::CurveRequest>(
        finished.begin() + from,
        finished.begin() + std::min(finished.size(), from + kRunsPerRead)));
    for (const auto& curve : curves) {
      std::optional<double> best;  // the run's best point
      for (const auto& p : curve.points)
        if (std::isfinite(p.value) && (!best || (lower ? p.value < *best : p.value > *best)))
          best = p.value;
      if (!best) return std::nullopt;  // a finished run without the curve: none every run reached
      if (!target || (lower ? *best > *target : *best < *target)) target = best;
    }
  }
  return target;
}

}  // namespace fathom::experiments
