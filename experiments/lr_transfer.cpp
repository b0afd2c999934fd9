#include "experiments/lr_transfer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "base/util/error.h"
#include "base/util/strings.h"
#include "experiments/axis_optimum.h"
#include "experiments/value_at_budget.h"

namespace fathom::experiments {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

// The depth axis: `asked`, or the one axis whose key ends in "layers" with two or more values
// (of a zip group such as encoder_layers + decoder_layers, the first in key order).
std::string depth_axis(const std::map<std::string, std::set<std::string>>& axes,
                       const std::string& asked) {
  std::vector<std::string> known, candidates;
  for (const auto& [key, values] : axes) {
    known.push_back(key);
    if (values.size() >= 2 && names_a_depth(key)) candidates.push_back(key);
  }
  if (!asked.empty()) {
    const auto it = axes.find(asked);
    if (it == axes.end())
      throw InputError(
          "fathom export lr-transfer", 0, "--depth",
          "'" + asked + "' is not an axis of the sweep (its axes: " + join(known, ", ") + ")");
    if (it->second.size() < 2)
      throw InputError("fathom export lr-transfer", 0, "--depth",
                       "'" + asked + "' has one value over the runs: no transfer to measure");
    return asked;
  }
  if (candidates.empty())
    throw InputError("fathom export lr-transfer", 0, "--depth",
                     "the sweep has no depth axis of two or more values ending in 'layers'; name "
                     "one (its axes: " +
                         join(known, ", ") + ")");
  return candidates.front();
}

}  // namespace

BestRate best_rate(const std::vector<double>& rates, const std::vector<std::vector<double>>& values,
                   int resamples, unsigned long long seed) {
  GridOptimum o = grid_optimum(rates, values, resamples, seed);
  return BestRate{o.x,           o.grid_x,          o.bracketed,
                  o.ci_lo,       o.ci_hi,           o.interval_at_an_end,
                  o.interval_df, std::move(o.draws)};
}

LrTransfer lr_transfer(const std::vector<std::pair<double, LrSensitivity>>& by_depth,
                       const std::string& depth_key) {
  LrTransfer t;
  t.depth_key = depth_key;
  std::vector<std::string> methods;
  std::map<std::string, std::vector<TransferRow>> rows;
  for (const auto& [depth, s] : by_depth) {
    t.metric = s.metric;
    for (const auto& c : s.curves) {
      if (c.points.size() < 3) continue;  // no neighbours to fit between
      std::vector<double> rates;
      std::vector<std::vector<double>> values;
      for (const auto& p : c.points) {
        rates.push_back(p.lr);
        values.push_back(p.values);
      }
      if (!rows.count(c.label)) methods.push_back(c.label);
      // Each depth's draws from its own stream: the depths' trainings are independent, and one
      // stream would resample the same seed indices at every depth.
      const unsigned long long seed = kLrBootstrapSeed + rows[c.label].size();
      rows[c.label].push_back(
          TransferRow{c.label, depth, best_rate(rates, values, kLrBootstrapResamples, seed)});
    }
  }
  for (const auto& method : methods) {
    auto& list = rows.at(method);
    std::sort(list.begin(), list.end(),
              [](const TransferRow& a, const TransferRow& b) { return a.depth < b.depth; });
    TransferSlope slope;
    slope.method = method;
    slope.depths = static_cast<int>(list.size());
    std::vector<double> ln_depth, ln_rate;
    for (const auto& r : list) {
      ln_depth.push_back(std::log(r.depth));
      ln_rate.push_back(std::log(r.best.lr));
      slope.bracketed = slope.bracketed && r.best.bracketed;
    }
    slope.slope = ols_slope(ln_depth, ln_rate);
    slope.ci_lo = slope.ci_hi = kNan;
    if (list.size() >= 2 && !std::isnan(slope.slope)) {
      std::vector<double> draws;
      for (size_t b = 0; b < list.front().best.draws.size(); ++b) {
        std::vector<double> y;
        for (const auto& r : list) y.push_back(r.best.draws.at(b));
        draws.push_back(ols_slope(ln_depth, y));
      }
      bool intervals = true;
      double df = 0;  // every depth's best rate's degrees of freedom
      for (const auto& r : list) {
        intervals = intervals && !std::isnan(r.best.ci_lo);
        df += r.best.interval_df;
      }
      if (intervals && !draws.empty())
        std::tie(slope.ci_lo, slope.ci_hi) = percentiles(draws, expanded_percentile_tail(df));
    }
    for (auto& r : list) t.rows.push_back(std::move(r));
    t.slopes.push_back(slope);
  }
  t.notes.push_back(
      "best lr: the vertex of the parabola in ln(rate) through each curve's lowest mean " +
      t.metric +
      " and its two neighbours (the grid's lowest where that is an end: unbracketed); 95 % "
      "interval: the rates where the curve's slope -- the parabola's through the three rates "
      "nearest -- is within t_0.975 standard errors of zero (their seeds' variance pooled), "
      "an interval reaching the grid's end leaving the optimum unplaced there");
  t.notes.push_back(
      "slope: least squares of ln(best lr) on ln(" + depth_key +
      "), its interval a bootstrap over seeds (each rate's seeds resampled, the drawn mean moved "
      "from the rate's mean by sqrt(n/(n-1)) times its distance, " +
      std::to_string(kLrBootstrapResamples) +
      " draws, each depth's from its own stream, each draw's best rates fitted as the "
      "estimate's), the ends the expanded percentile's for every depth's degrees of freedom, "
      "summed (Hesterberg 2015); 0: the rate transfers across depth, -1: it falls as 1/depth");
  return t;
}

LrTransfer load_lr_transfer(const db::Store& store, const std::string& sweep,
                            const std::string& depth_key, const std::string& metric,
                            RunReading value, const std::string& where, const std::string& label) {
  return lr_transfer_of(store, select_sweep_runs(store, sweep, where), depth_key, metric, value,
                        label);
}

LrTransfer lr_transfer_of(const db::Store& store, const SweepRuns& selected,
                          const std::string& depth_key, const std::string& metric, RunReading value,
                          const std::string& label) {
  std::map<std::string, std::set<std::string>> axes;
  const auto table_runs = load_table_runs(store, selected, metric, {});
  // One least budget for every depth: the least of all the sweep's finished runs.
  if (value.at)
    value.at =
        resolve_least(*value.at, store, finished_runs(table_runs), "fathom export lr-transfer");
  for (const auto& r : table_runs)
    for (const auto& [key, v] : r.axes) axes[key].insert(v);
  const std::string key = depth_axis(axes, depth_key);
  // Each depth's runs among those selected, in their order, by the same axis values the depths
  // came from (every depth listed has some).
  std::map<std::string, std::set<int64_t>> ids_at;
  for (const auto& r : table_runs)
    if (const auto it = r.axes.find(key); it != r.axes.end()) ids_at[it->second].insert(r.id);
  const auto runs_at = [&](const std::string& text) {
    SweepRuns at{{}, selected.runs.size(), key + "=" + text};
    for (const auto& r : selected.runs)
      if (ids_at[text].count(r.id)) at.runs.push_back(r);
    return at;
  };
  std::vector<std::pair<double, std::string>> depths;  // numeric order
  for (const auto& d : axes.at(key)) depths.emplace_back(std::strtod(d.c_str(), nullptr), d);
  std::sort(depths.begin(), depths.end());
  std::vector<std::pair<double, LrSensitivity>> by_depth;
  std::vector<std::string> notes, budget_notes;  // budget_notes: each depth's, named
  for (const auto& [depth, text] : depths) {
    LrSensitivity s = lr_sensitivity_of(store, runs_at(text), metric, value, label);
    // How l0 and each run's value were found: the same at every depth; keep the first depth's.
    if (notes.empty())
      for (const auto& n : s.notes)
        if (n.rfind("l0 =", 0) == 0 || n.rfind("each run's", 0) == 0) notes.push_back(n);
    for (const auto& n : s.budget_notes) budget_notes.push_back(key + "=" + text + ": " + n);
    by_depth.emplace_back(depth, std::move(s));
  }
  LrTransfer t = lr_transfer(by_depth, key);
  for (const auto& n : notes) t.notes.push_back(n);
  t.notes.insert(t.notes.end(), budget_notes.begin(), budget_notes.end());
  if (auto note = selected.note()) t.notes.push_back(*note);
  return t;
}

TextTable lr_transfer_table(const LrTransfer& t) {
  TextTable table;
  const auto dot = t.depth_key.rfind('.');
  const std::string depth = dot == std::string::npos ? t.depth_key : t.depth_key.substr(dot + 1);
  table.header = {"curve", depth, "best lr (fit)", "95 % interval", "grid's best lr"};
  for (const auto& r : t.rows) {
    const std::string interval =
        !r.best.bracketed ? "unbracketed"
        : std::isnan(r.best.ci_lo)
            ? "n/a (1 seed)"
            : "[" + three_digits(r.best.ci_lo) + ", " + three_digits(r.best.ci_hi) + "]" +
                  (r.best.interval_at_an_end ? " (reaches the grid's end: inconclusive)" : "");
    table.rows.push_back({r.method, three_digits(r.depth), three_digits(r.best.lr), interval,
                          three_digits(r.best.grid_lr) + (r.best.bracketed ? "" : " (an end)")});
  }
  return table;
}

TextTable lr_transfer_slope_table(const LrTransfer& t) {
  TextTable table;
  table.header = {"curve", "depths", "slope of ln(best lr) on ln(depth)", "95 % interval"};
  for (const auto& s : t.slopes) {
    std::string slope = std::isnan(s.slope) ? "n/a (1 depth)" : three_digits(s.slope);
    if (!std::isnan(s.slope) && !s.bracketed) slope += " (an optimum unbracketed: a bound)";
    const std::string interval =
        std::isnan(s.ci_lo) ? "-"
                            : "[" + three_digits(s.ci_lo) + ", " + three_digits(s.ci_hi) + "]";
    table.rows.push_back({s.method, std::to_string(s.depths), slope, interval});
  }
  return table;
}

}  // namespace fathom::experiments
