#include "experiments/hparam_importance.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <set>
#include <stdexcept>

#include "base/util/error.h"
#include "base/util/strings.h"
#include "db/metric_names.h"
#include "experiments/grid_completion.h"
#include "experiments/importance_grid.h"
#include "experiments/importance_intervals.h"
#include "experiments/sweep_runs.h"
#include "experiments/value_at_budget.h"

namespace fathom::experiments {
namespace {

// A value index of each axis that no setting with a value has: nothing to predict its
// settings from (the message names it), or "" when every value has one.
std::string unobserved_value(const Grid& g, const CellMeans& observed) {
  for (size_t i = 0; i < g.axes.size(); ++i)
    for (size_t v = 0; v < g.levels[i].size(); ++v) {
      bool seen = false;
      for (const auto& [c, m] : observed) seen = seen || c[i] == static_cast<int>(v);
      if (!seen) return g.axes[i] + "=" + g.levels[i][v];
    }
  return "";
}

// The settings without a value filled by the fitted model (experiments/grid_completion.h),
// or refused, naming the first of them, where the settings with values cannot determine it.
std::unique_ptr<GridCompleter> fill_missing(const Grid& g, const std::string& metric,
                                            const std::vector<Setting>& missing, CellMeans& mean,
                                            HparamImportance& out) {
  const auto it = g.values.find(missing.front());
  const std::string first = "no run of " + cell_text(g, missing.front()) + " has a value of " +
                            metric + (it == g.values.end() ? " (the grid has no such run)" : "");
  const auto refuse = [&](const std::string& why) {
    throw InputError(
        "fathom export importance", 0, "--metric",
        first + "; " + why + ": filter the sweep with --where, or decompose --metric diverged");
  };
  if (const std::string value = unobserved_value(g, mean); !value.empty())
    refuse("no run with " + value + " has one, so nothing predicts its settings");
  std::vector<int> levels;
  for (const auto& l : g.levels) levels.push_back(static_cast<int>(l.size()));
  // The main effects must be determined; interactions the data leave free are kept smallest.
  int additive = 1;
  for (int l : levels) additive += l - 1;
  if (static_cast<int>(mean.size()) < additive)
    refuse(std::to_string(mean.size()) + " of " + std::to_string(mean.size() + missing.size()) +
           " settings have one, fewer than the " + std::to_string(additive) +
           " unknowns of the main effects that would predict the other " +
           std::to_string(missing.size()));
  const int unknowns = second_order_parameters(levels);
  std::vector<Setting> observed;
  std::vector<double> means;
  for (const auto& [c, m] : mean) observed.push_back(c), means.push_back(m);
  std::unique_ptr<GridCompleter> completer;
  try {
    completer = std::make_unique<GridCompleter>(levels, observed, missing);
  } catch (const std::invalid_argument&) {  // the main effects confounded by what is missing
    refuse("the settings that have one do not determine the main effects");
  }
  const GridCompletion fit = completer->fill(means);
  for (const auto& [c, m] : fit.filled) mean[c] = m;
  out.filled = static_cast<int>(missing.size());
  out.fit_r_squared = fit.r_squared;
  char r2[32];
  std::snprintf(r2, sizeof r2, "%.3f", fit.r_squared);
  out.notes.push_back(
      std::to_string(missing.size()) + " of " + std::to_string(mean.size()) +
      " settings have no run with a value of " + metric +
      (metric == kDivergedMetric ? " (not run, or unfinished; "
                                 : " (diverged, failed or not run; ") +
      cell_text(g, missing.front()) + (missing.size() > 1 ? ", ..." : "") +
      "): each takes the prediction of main effects and " +
      "pairwise interactions fitted to the others by least squares (R^2 = " + r2 + " over them" +
      (static_cast<int>(mean.size() - missing.size()) < unknowns
           ? "; with " + std::to_string(unknowns) +
                 " unknowns, more than those settings, the interactions they leave free are "
                 "taken as small as possible"
           : std::string()) +
      "), so the shares are of a grid where those settings ended as predicted" +
      (metric == kDivergedMetric ? "" : "; --metric diverged decomposes divergence itself"));
  return completer;
}

// Each cell's mean of `metric` over its seeds, for the cells with a value; the others go to
// `missing`. Sets out's runs, cells and seed variance (over the cells with values).
CellMeans cell_means(const Grid& g, const std::string& metric, std::vector<Setting>& missing,
                     HparamImportance& out) {
  const auto cells = all_cells(g);
  CellMeans mean;
  double within = 0;
  for (const auto& c : cells) {
    const auto it = g.values.find(c);
    if (it == g.values.end() || it->second.empty()) {
      missing.push_back(c);
      continue;
    }
    double sum = 0;
    for (double v : it->second) sum += v;
    const double m = sum / static_cast<double>(it->second.size());
    double ss = 0;
    for (double v : it->second) ss += (v - m) * (v - m);
    within += ss / static_cast<double>(it->second.size());
    mean[c] = m;
    out.runs += static_cast<int>(it->second.size());
  }
  out.cells = static_cast<int>(cells.size());
  if (mean.empty())
    throw InputError("fathom export importance", 0, "--metric",
                     "no run of the sweep has a value of " + metric);
  out.seed_variance = within / static_cast<double>(mean.size());
  return mean;
}

}  // namespace

HparamImportance hparam_importance(const std::vector<TableRun>& runs, const std::string& metric,
                                   const std::string& seed_key,
                                   const std::vector<std::vector<std::string>>& groups) {
  HparamImportance out;
  out.metric = metric;
  const Grid g = grid_of(runs, seed_key, groups);
  if (g.axes.empty())
    throw InputError("fathom export importance", 0, "--sweep",
                     "no swept axis besides " + seed_key + " has two values: nothing to explain");
  out.axes = g.axes;

  std::vector<Setting> missing;
  const CellMeans observed = cell_means(g, metric, missing, out);
  CellMeans mean = observed;
  std::unique_ptr<GridCompleter> completer;
  if (!missing.empty()) completer = fill_missing(g, metric, missing, mean, out);

  const Decomposition d = decompose(g, mean);
  out.total_variance = d.total_variance;
  out.terms = d.terms;
  out.higher_order_share = d.higher_order_share;
  add_share_intervals(g, observed, completer.get(), out);

  int left_out = 0;
  for (const auto& r : runs)
    if (!r.metric || !std::isfinite(*r.metric)) ++left_out;
  out.notes.insert(out.notes.begin(), std::to_string(out.cells) + " settings of " +
                                          std::to_string(g.axes.size()) + " axes, " +
                                          std::to_string(out.runs) + " runs; seeds (" + seed_key +
                                          ") are replicates, averaged in each setting");
  if (left_out > 0)
    out.notes.push_back(std::to_string(left_out) + " runs without a finite " + metric +
                        " (diverged, failed or unfinished) are left out");
  if (out.total_variance <= 0)
    out.notes.push_back("every setting has the same mean: there is no variance to explain");
  return out;
}

HparamImportance load_hparam_importance(const db::Store& store, const std::string& sweep,
                                        const std::string& metric, RunReading value,
                                        const std::string& where) {
  return hparam_importance_of(store, select_sweep_runs(store, sweep, where), metric, value);
}

HparamImportance hparam_importance_of(const db::Store& store, const SweepRuns& selected,
                                      const std::string& metric, RunReading value) {
  const bool diverged = metric == kDivergedMetric;
  auto runs = load_table_runs(store, selected, diverged ? db::metric::kValidLoss : metric, {});
  std::vector<std::string> budget_notes;
  if (!diverged || value.at)  // diverged at a budget: where each run stood on its loss curve
    budget_notes = read_run_values(runs, store, diverged ? db::metric::kValidLoss : metric, value,
                                   "fathom export importance");
  for (auto& r : runs) {
    if (diverged) {
      // At a budget a run that got there is "finished" with a value; one short of it has none.
      const bool finished = r.status == "finished" && (!value.at || r.metric);
      const bool ended = finished || r.status == "diverged";
      r.metric = ended ? std::optional<double>(r.status == "diverged" ? 1.0 : 0.0) : std::nullopt;
    } else if (r.status != "finished") {
      r.metric.reset();  // a diverged, failed or unfinished run has no comparable final value
    }
  }
  // The sweep's zip groups (tag sweep.axes: "train.lr,model.norm+model.init,...") are one
  // axis each: their keys move together, so the grid is over the groups, not the keys.
  std::vector<std::vector<std::string>> groups;
  if (!selected.runs.empty()) {
    const auto tags = store.tags(selected.runs.front().id);
    if (const auto it = tags.find("sweep.axes"); it != tags.end())
      for (const auto& axis : split(it->second, ',')) groups.push_back(split(axis, '+'));
  }
  HparamImportance h = hparam_importance(runs, metric, "train.seed", groups);
  if (value.at)
    h.notes.push_back("each run as it stood at " + budget_text(*value.at) + ", not at its end");
  h.notes.insert(h.notes.end(), budget_notes.begin(), budget_notes.end());
  if (auto note = computed_differently_note(runs)) h.notes.push_back(*note);
  if (auto note = early_stop_note(runs)) h.notes.push_back(*note);
  if (const auto note = selected.note()) h.notes.push_back(*note);
  return h;
}

TextTable hparam_importance_table(const HparamImportance& h) {
  TextTable t;
  t.header = {"axes", "variance", "share of the settings' variance"};
  auto number = [](double v, const char* format) {
    char text[32];
    std::snprintf(text, sizeof text, format, v);
    return std::string(text);
  };
  // "45.1 % [38.0, 52.3]" where the shares have intervals.
  const auto share = [&](double value, double lo, double hi) {
    std::string text = number(100 * value, "%.1f %%");
    if (h.interval_draws > 0)
      text += " [" + number(100 * lo, "%.1f") + ", " + number(100 * hi, "%.1f") + "]";
    return text;
  };
  for (const auto& term : h.terms) {
    std::string name;
    for (size_t i = 0; i < term.axes.size(); ++i) name += (i ? " x " : "") + term.axes[i];
    t.rows.push_back(
        {name, number(term.variance, "%.4g"), share(term.share, term.share_lo, term.share_hi)});
  }
  if (h.terms.size() > 1 && h.axes.size() > 2)
    t.rows.push_back({"(3 or more axes together)", "",
                      share(h.higher_order_share, h.higher_order_lo, h.higher_order_hi)});
  t.rows.push_back({"(between the settings, V)", number(h.total_variance, "%.4g"), "100.0 %"});
  t.rows.push_back({"(seeds within a setting)", number(h.seed_variance, "%.4g"), ""});
  return t;
}

}  // namespace fathom::experiments
