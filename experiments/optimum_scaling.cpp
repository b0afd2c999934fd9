#include "experiments/optimum_scaling.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <tuple>

#include "base/metrics/statistics.h"
#include "experiments/axis_optimum.h"
#include "experiments/grid_optimum.h"

namespace fathom::experiments {
namespace {

constexpr int kScalingResamples = 2000;
constexpr unsigned long long kScalingSeed = 20220329;  // as experiments/axis_optimum.cpp's
constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();

// One budget's grid as the optimum is found over it: the x values with a value, each with its
// runs' values (negated where higher is better: the optimum is the lowest).
struct ScalingGrid {
  double ln_budget = 0;
  std::vector<double> x, ln_x;
  std::vector<std::map<int64_t, double>> by_run;
  std::vector<double> mean;  // each x's mean over all its runs: where a drawn mean is rescaled
  bool resamplable = true;   // every x has two runs or more
};

ScalingGrid scaling_grid(const BudgetLine& b, bool higher_is_better) {
  ScalingGrid g;
  g.ln_budget = std::log(b.budget);
  for (size_t i = 0; i < b.xs.size() && i < b.cells.size(); ++i) {
    const TableCell& cell = b.cells[i];
    if (!cell.value || cell.values.empty()) continue;
    std::map<int64_t, double> runs;
    for (size_t k = 0; k < cell.values.size(); ++k) {
      // A cell built without its runs' ids: each value its own pseudo-run, negative ids.
      const int64_t id = k < cell.value_runs.size() ? cell.value_runs[k] : -1 - int64_t(k);
      runs[id] = higher_is_better ? -cell.values[k] : cell.values[k];
    }
    g.resamplable = g.resamplable && runs.size() >= 2;
    double sum = 0;
    for (const auto& [id, v] : runs) sum += v;
    g.mean.push_back(sum / static_cast<double>(runs.size()));
    g.x.push_back(b.xs[i]);
    g.ln_x.push_back(std::log(b.xs[i]));
    g.by_run.push_back(std::move(runs));
  }
  return g;
}

// ln(optimum) of a grid from the drawn runs of each x (all of them, once each, for the
// estimate); NaN where fewer than three x values keep a drawn run. Each drawn mean is moved from
// the x's mean by sqrt(n/(n-1)) times its distance, n the x's runs at this budget
// (rescaled_bootstrap_mean: a resampled mean spreads too little); the estimate's is its mean.
double drawn_log_optimum(const ScalingGrid& g, const std::map<double, std::vector<int64_t>>& drawn,
                         bool* bracketed) {
  std::vector<double> ln_x, means;
  for (size_t i = 0; i < g.x.size(); ++i) {
    double sum = 0;
    int n = 0;
    for (int64_t id : drawn.at(g.x[i]))
      if (const auto it = g.by_run[i].find(id); it != g.by_run[i].end()) sum += it->second, ++n;
    if (n == 0) continue;
    ln_x.push_back(g.ln_x[i]);
    means.push_back(rescaled_bootstrap_mean(sum / n, g.mean[i], g.by_run[i].size()));
  }
  *bracketed = false;
  return ln_x.size() < 3 ? kNoValue : log_grid_optimum(ln_x, means, bracketed);
}

}  // namespace

bool OptimumScaling::inconclusive() const { return !std::isnan(ci_lo) && ci_lo < 0 && ci_hi > 0; }

std::string OptimumScaling::text() const {
  const std::string head = line + ": ";
  if (budgets < kScalingBudgets)
    return head + "no exponent: " + std::to_string(budgets) + " of " +
           std::to_string(budgets_asked) + " budgets bracket the best " + axis + " (" +
           std::to_string(kScalingBudgets) + " needed)";
  const std::string power = budget_axis + "^" + three_digits(exponent);
  const std::string over = std::to_string(budgets) + " budgets, " + three_digits(budget_lo) + "-" +
                           three_digits(budget_hi);
  if (std::isnan(ci_lo))
    return head + "best " + axis + " as " + power + " over " + over +
           " (one run at an x: no interval)";
  const std::string ci = "95 % CI " + three_digits(ci_lo) + " to " + three_digits(ci_hi);
  if (inconclusive())
    return head + "best " + axis + " as " + power + ", " + ci + " holds 0: inconclusive whether " +
           "it grows or shrinks with " + budget_axis + " (" + over + ")";
  return head + "best " + axis + (exponent >= 0 ? " grows as " : " shrinks as ") + power + " (" +
         ci + "; " + over + ")";
}

OptimumScaling optimum_scaling(const std::string& line, const std::string& axis,
                               const std::string& budget_axis, const std::vector<BudgetLine>& at,
                               bool higher_is_better) {
  OptimumScaling out;
  out.line = line;
  out.axis = axis;
  out.budget_axis = budget_axis;
  out.budgets_asked = static_cast<int>(at.size());
  out.exponent = out.log_coefficient = out.ci_lo = out.ci_hi = kNoValue;
  // The point estimate: each budget's optimum from all its runs; the fit over the bracketed.
  std::vector<ScalingGrid> fitted;
  std::map<double, std::vector<int64_t>> all;  // each x's runs over every budget fitted
  std::vector<double> ln_c, ln_best;
  for (const BudgetLine& b : at) {
    ScalingGrid g = scaling_grid(b, higher_is_better);
    std::map<double, std::vector<int64_t>> runs;
    for (size_t i = 0; i < g.x.size(); ++i)
      for (const auto& [id, v] : g.by_run[i]) runs[g.x[i]].push_back(id);
    bool bracketed = false;
    const double best = drawn_log_optimum(g, runs, &bracketed);
    if (!bracketed) continue;
    ln_c.push_back(g.ln_budget);
    ln_best.push_back(best);
    out.fit_budgets.push_back(b.budget);
    out.fit_best.push_back(std::exp(best));
    for (const auto& [x, ids] : runs) {
      auto& pool = all[x];
      for (int64_t id : ids)
        if (std::find(pool.begin(), pool.end(), id) == pool.end()) pool.push_back(id);
    }
    fitted.push_back(std::move(g));
  }
  out.budgets = static_cast<int>(fitted.size());
  if (out.budgets < kScalingBudgets) return out;
  out.budget_lo = std::exp(*std::min_element(ln_c.begin(), ln_c.end()));
  out.budget_hi = std::exp(*std::max_element(ln_c.begin(), ln_c.end()));
  out.exponent = ols_slope(ln_c, ln_best);
  double mean_c = 0, mean_best = 0;  // the line passes through the means
  for (size_t k = 0; k < ln_c.size(); ++k) mean_c += ln_c[k], mean_best += ln_best[k];
  out.log_coefficient = (mean_best - out.exponent * mean_c) / static_cast<double>(ln_c.size());
  bool resamplable = true;
  for (const ScalingGrid& g : fitted) resamplable = resamplable && g.resamplable;
  if (!resamplable || std::isnan(out.exponent)) return out;
  // A draw: each x's runs resampled once, read at every budget.
  std::mt19937_64 draw(kScalingSeed);
  std::vector<double> exponents;
  std::map<double, std::vector<int64_t>> drawn;
  for (int b = 0; b < kScalingResamples; ++b) {
    for (const auto& [x, pool] : all) {
      std::vector<int64_t>& ids = drawn[x];
      ids.clear();
      for (size_t k = 0; k < pool.size(); ++k) ids.push_back(pool[draw() % pool.size()]);
    }
    std::vector<double> best;
    for (const ScalingGrid& g : fitted) {
      bool inside = false;  // an optimum drawn at the grid's end counts as that end
      best.push_back(drawn_log_optimum(g, drawn, &inside));
    }
    if (std::find_if(best.begin(), best.end(), [](double v) { return std::isnan(v); }) !=
        best.end())
      continue;
    exponents.push_back(ols_slope(ln_c, best));
  }
  if (exponents.empty()) return out;
  out.interval_df = 0;  // each x's runs less one, pooled: the resampled units
  for (const auto& [x, pool] : all) out.interval_df += static_cast<double>(pool.size()) - 1;
  std::tie(out.ci_lo, out.ci_hi) =
      percentiles(exponents, expanded_percentile_tail(out.interval_df));
  return out;
}

std::vector<OptimumScaling> row_scalings(const std::vector<double>& budgets,
                                         const std::vector<ComparisonTable>& tables,
                                         const std::string& axis, const std::string& budget_axis,
                                         bool higher_is_better) {
  if (tables.empty() || budgets.size() != tables.size()) return {};
  std::vector<OptimumScaling> out;
  for (const std::string& row : tables.front().row_labels) {
    std::vector<BudgetLine> at;
    for (size_t k = 0; k < tables.size(); ++k) {
      const ComparisonTable& t = tables[k];
      const std::vector<double> labels = numeric_columns(t);
      if (labels.empty()) return {};
      const auto r = std::find(t.row_labels.begin(), t.row_labels.end(), row);
      if (r == t.row_labels.end()) continue;
      const std::vector<size_t> order = columns_by_value(labels);
      BudgetLine line;
      line.budget = budgets[k];
      for (size_t c : order) {
        line.xs.push_back(labels[c]);
        line.cells.push_back(t.cells[static_cast<size_t>(r - t.row_labels.begin())][c]);
      }
      at.push_back(std::move(line));
    }
    out.push_back(optimum_scaling(row, axis, budget_axis, at, higher_is_better));
  }
  return out;
}

}  // namespace fathom::experiments
