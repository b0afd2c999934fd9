#include "experiments/hparam_importance.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <set>
#include <stdexcept>
#include <tuple>

#include "base/util/error.h"
#include "base/util/strings.h"
#include "db/metric_names.h"
#include "experiments/grid_completion.h"
#include "experiments/sweep_runs.h"

namespace fathom::experiments {
namespace {

struct Grid {
  std::vector<std::string> axes;                 // varying axes
  std::vector<std::vector<std::string>> levels;  // per axis, first-seen order
  // cell (one level index per axis) -> the values of its runs
  std::map<std::vector<int>, std::vector<double>> values;
};

// A group's value in a run: its keys' values joined as the tables join a zip group.
std::string group_value(const TableRun& r, const std::vector<std::string>& group) {
  std::string v;
  for (size_t i = 0; i < group.size(); ++i) {
    const auto it = r.axes.find(group[i]);
    v += (i ? " / " : "") + (it == r.axes.end() ? std::string() : it->second);
  }
  return v;
}

Grid grid_of(const std::vector<TableRun>& runs, const std::string& seed_key,
             std::vector<std::vector<std::string>> groups) {
  Grid g;
  // Keys of no given group are axes of their own.
  for (const auto& r : runs)
    for (const auto& [key, value] : r.axes) {
      bool grouped = key == seed_key;
      for (const auto& group : groups)
        grouped = grouped || std::find(group.begin(), group.end(), key) != group.end();
      if (!grouped) groups.push_back({key});
    }
  std::vector<std::vector<std::string>> used;
  for (const auto& group : groups) {
    if (group.size() == 1 && group[0] == seed_key) continue;
    std::vector<std::string> seen;
    for (const auto& r : runs)
      if (const std::string v = group_value(r, group);
          std::find(seen.begin(), seen.end(), v) == seen.end())
        seen.push_back(v);
    if (seen.size() < 2) continue;  // one value: nothing to explain
    std::string name;
    for (size_t i = 0; i < group.size(); ++i) name += (i ? "+" : "") + group[i];
    g.axes.push_back(name);
    g.levels.push_back(seen);
    used.push_back(group);
  }
  for (const auto& r : runs) {
    std::vector<int> cell;
    for (size_t i = 0; i < used.size(); ++i) {
      const std::string v = group_value(r, used[i]);
      cell.push_back(static_cast<int>(std::find(g.levels[i].begin(), g.levels[i].end(), v) -
                                      g.levels[i].begin()));
    }
    auto& slot = g.values[cell];
    if (r.metric && std::isfinite(*r.metric)) slot.push_back(*r.metric);
  }
  return g;
}

std::string cell_text(const Grid& g, const std::vector<int>& cell) {
  std::string text;
  for (size_t i = 0; i < cell.size(); ++i)
    text += (i ? ", " : "") + g.axes[i] + "=" + g.levels[i][static_cast<size_t>(cell[i])];
  return text;
}

// Every cell of the full grid, in odometer order.
std::vector<std::vector<int>> all_cells(const Grid& g) {
  std::vector<std::vector<int>> cells{{}};
  for (const auto& levels : g.levels) {
    std::vector<std::vector<int>> next;
    for (const auto& c : cells)
      for (size_t v = 0; v < levels.size(); ++v) {
        auto d = c;
        d.push_back(static_cast<int>(v));
        next.push_back(d);
      }
    cells = next;
  }
  return cells;
}

// A value per cell (or per level of some axes), keyed by the levels.
using CellMeans = std::map<std::vector<int>, double>;

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

// Marginal means over the cells that share the given axes' levels.
CellMeans marginal_means(const CellMeans& mean, const std::vector<size_t>& on) {
  std::map<std::vector<int>, std::pair<double, int>> acc;
  for (const auto& [c, m] : mean) {
    std::vector<int> key;
    for (size_t i : on) key.push_back(c[i]);
    acc[key].first += m;
    acc[key].second += 1;
  }
  CellMeans result;
  for (const auto& [key, a] : acc) result[key] = a.first / a.second;
  return result;
}

// The functional ANOVA of a full grid of means: V, the main effects of each axis and the
// interactions of each pair (its terms of orders 1 and 2), each order by variance, with their
// shares of V, and the rest (orders 3 and up).
struct Decomposition {
  double total_variance = 0;
  std::vector<ImportanceTerm> terms;
  double higher_order_share = 0;
};

Decomposition decompose(const Grid& g, const CellMeans& mean) {
  Decomposition d;
  double mu = 0;
  for (const auto& [c, m] : mean) mu += m;
  mu /= static_cast<double>(mean.size());
  for (const auto& [c, m] : mean) d.total_variance += (m - mu) * (m - mu);
  d.total_variance /= static_cast<double>(mean.size());
  std::vector<CellMeans> main(g.axes.size());
  for (size_t i = 0; i < g.axes.size(); ++i) {
    main[i] = marginal_means(mean, {i});
    double v = 0;
    for (auto& [key, m] : main[i]) {
      m -= mu;  // f_i(a)
      v += m * m;
    }
    d.terms.push_back({{g.axes[i]}, v / static_cast<double>(main[i].size()), 0});
  }
  std::vector<ImportanceTerm> pairs;
  for (size_t i = 0; i < g.axes.size(); ++i)
    for (size_t j = i + 1; j < g.axes.size(); ++j) {
      const auto both = marginal_means(mean, {i, j});
      double v = 0;
      for (const auto& [key, m] : both) {
        const double f = m - mu - main[i].at({key[0]}) - main[j].at({key[1]});
        v += f * f;
      }
      pairs.push_back({{g.axes[i], g.axes[j]}, v / static_cast<double>(both.size()), 0});
    }
  auto by_share = [](const ImportanceTerm& a, const ImportanceTerm& b) {
    return a.variance > b.variance;
  };
  std::stable_sort(d.terms.begin(), d.terms.end(), by_share);
  std::stable_sort(pairs.begin(), pairs.end(), by_share);
  d.terms.insert(d.terms.end(), pairs.begin(), pairs.end());
  double explained = 0;
  for (auto& t : d.terms) {
    t.share = d.total_variance > 0 ? t.variance / d.total_variance : 0;
    explained += t.share;
  }
  d.higher_order_share = d.total_variance > 0 ? std::max(0.0, 1 - explained) : 0;
  return d;
}

// Up to this many settings the shares get intervals: each draw decomposes the whole grid again
// (and refits the missing settings); the 200 draws take about 0.2 ms a setting
// (bench/bench_importance.cpp, docs/performance.md), so half a second at the limit.
constexpr int kIntervalSettings = 2000;
constexpr int kIntervalDraws = 200;

// 95 % percentile intervals of each term's share and of the rest over draws that resample each
// setting's runs with replacement (a setting of one run stays as it is), the missing settings
// predicted anew from each draw's means. Deterministic: the draws' generator has a fixed seed.
void add_intervals(const Grid& g, const CellMeans& observed, const GridCompleter* completer,
                   HparamImportance& out) {
  bool replicated = false;
  for (const auto& [c, m] : observed) replicated |= g.values.at(c).size() > 1;
  if (out.total_variance <= 0) return;
  if (!replicated) {
    out.notes.push_back("no intervals: no setting has two runs to resample");
    return;
  }
  if (out.cells > kIntervalSettings) {
    out.notes.push_back("no intervals: over " + std::to_string(kIntervalSettings) +
                        " settings, the draws would take too long");
    return;
  }
  std::mt19937_64 random(20141);
  std::map<std::vector<std::string>, std::vector<double>> shares;
  std::vector<double> rest;
  for (int draw = 0; draw < kIntervalDraws; ++draw) {
    CellMeans mean;
    std::vector<double> in_order;
    for (const auto& [c, m] : observed) {
      const auto& values = g.values.at(c);
      std::uniform_int_distribution<size_t> pick(0, values.size() - 1);
      double sum = 0;
      for (size_t k = 0; k < values.size(); ++k) sum += values[pick(random)];
      mean[c] = sum / static_cast<double>(values.size());
      in_order.push_back(mean[c]);
    }
    if (completer)
      for (const auto& [c, m] : completer->fill(in_order).filled) mean[c] = m;
    const Decomposition d = decompose(g, mean);
    for (const auto& t : d.terms) shares[t.axes].push_back(t.share);
    rest.push_back(d.higher_order_share);
  }
  const auto interval = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const auto at = [&](double q) { return v[static_cast<size_t>(q * (v.size() - 1) + 0.5)]; };
    return std::pair{at(0.025), at(0.975)};
  };
  for (auto& t : out.terms) std::tie(t.share_lo, t.share_hi) = interval(shares.at(t.axes));
  std::tie(out.higher_order_lo, out.higher_order_hi) = interval(rest);
  out.interval_draws = kIntervalDraws;
  out.notes.push_back("[lo, hi]: 95 % interval of " + std::to_string(kIntervalDraws) +
                      " draws that resample each setting's runs (a setting of one run stays "
                      "fixed)" +
                      (completer ? ", the missing settings predicted anew in each" : ""));
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
  add_intervals(g, observed, completer.get(), out);

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
                                        const std::string& metric, RunValue value,
                                        const std::string& where) {
  const bool diverged = metric == kDivergedMetric;
  const SweepRuns selected = select_sweep_runs(store, sweep, where);
  auto runs = load_table_runs(store, selected, diverged ? db::metric::kValidLoss : metric, {});
  if (!diverged) {
    TableOptions o;
    o.metric = metric;
    o.value = value;
    use_run_value(runs, store, o);
  }
  for (auto& r : runs) {
    if (diverged) {
      const bool ended = r.status == "finished" || r.status == "diverged";
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
