#include "plot/budgets_figure.h"

#include <cmath>
#include <cstdlib>

#include "base/util/error.h"
#include "db/metric_presentation.h"
#include "experiments/sweep_runs.h"
#include "experiments/value_at_budget.h"
#include "plot/line_optimum.h"

namespace fathom::plot {
namespace {

// The column labels as numbers (a depth); InputError naming --x where one is not.
std::vector<double> numeric_labels(const std::vector<std::string>& labels, const std::string& x) {
  std::vector<double> out;
  for (const auto& label : labels) {
    char* end = nullptr;
    const double v = std::strtod(label.c_str(), &end);
    if (label.empty() || *end != '\0' || !std::isfinite(v))
      throw InputError("fathom export plot budgets", 0, "--x",
                       x + " has the value '" + label +
                           "', not a number: the x axis must be a numeric sweep axis (a depth, a "
                           "width); put a categorical one in --rows");
    out.push_back(v);
  }
  return out;
}

// One budget's lines: a series per row of the table at it, each with its optimum (and, where
// bracketed, the optimum's parabola after it).
void add_budget_lines(const experiments::ComparisonTable& t, const experiments::Budget& at,
                      const BudgetsQuery& q, bool several_budgets, BudgetsFigure& out) {
  const std::vector<double> xs = numeric_labels(t.col_labels, q.x);
  for (size_t r = 0; r < t.row_labels.size(); ++r) {
    LineSeries s;
    std::string name = q.rows.empty() ? "" : t.row_labels[r];
    if (several_budgets || name.empty())
      name += (name.empty() ? "" : ", ") + experiments::budget_text(at);
    s.name = name;
    std::vector<std::vector<double>> values;
    for (size_t c = 0; c < xs.size(); ++c) {
      const experiments::TableCell& cell = t.cells[r][c];
      s.x.push_back(xs[c]);
      s.y.push_back(cell.value ? *cell.value : std::nan(""));
      s.err.push_back(cell.ci95 ? *cell.ci95 : std::nan(""));
      values.push_back(cell.value ? cell.values : std::vector<double>{});
    }
    out.optima.push_back(
        experiments::axis_optimum(s.name, experiments::short_axis_key(q.x), s.x, values,
                                  db::metric::higher_is_better(q.metric).value_or(false)));
    const std::optional<LineSeries> fit = optimum_parabola(out.optima.back(), s);
    out.figure.series.push_back(std::move(s));
    if (fit) out.figure.series.push_back(*fit);
  }
}

// A least budget found among the finished runs the filter keeps, as a table of them finds it:
// the lines are named by its number.
experiments::Budget definite(const db::Store& store, const BudgetsQuery& q,
                             const experiments::Budget& b) {
  if (!b.least) return b;
  const experiments::SweepRuns selected = experiments::filter_sweep_runs(
      store.list_runs(q.sweep), q.sweep, q.where, "fathom export plot budgets");
  return experiments::resolve_least(b, store, experiments::finished_runs(selected.runs),
                                    "fathom export plot budgets");
}

}  // namespace

BudgetsFigure budgets_figure(const db::Store& store, const BudgetsQuery& q) {
  if (q.budgets.empty())
    throw InputError("fathom export plot budgets", 0, "--at", "name at least one budget");
  if (q.x.empty())
    throw InputError("fathom export plot budgets", 0, "--x", "name the numeric sweep axis");
  BudgetsFigure out;
  out.figure.x.label = experiments::short_axis_key(q.x);
  out.figure.y.label = q.metric;
  for (const experiments::Budget& asked : q.budgets) {
    const experiments::Budget budget = definite(store, q, asked);
    experiments::TableOptions o;
    // Without rows, the x axis is the table's rows and its one column is the line.
    o.rows = q.rows.empty() ? q.x : q.rows;
    o.cols = q.rows.empty() ? "" : q.x;
    o.metric = q.metric;
    o.spread = experiments::Spread::Ci95;
    o.agg = q.agg;
    o.select_by = q.select_by;
    o.at = budget;
    experiments::ComparisonTable t =
        experiments::sweep_comparison_table(store, q.sweep, o, q.where);
    if (q.rows.empty()) t = experiments::as_one_line(t);  // the line, a column per x value
    // The budget as the tables found it: a least one's number is in the notes.
    const std::string said = experiments::budget_text(budget);
    for (const auto& n : t.notes) out.notes.push_back(said + ": " + n);
    add_budget_lines(t, budget, q, q.budgets.size() > 1, out);
  }
  // Depths are counts: no tick at 2.5 layers.
  out.figure.x.whole_numbers = true;
  for (const auto& s : out.figure.series)
    if (s.fit_of.empty())
      for (double x : s.x) out.figure.x.whole_numbers &= x == std::floor(x);
  return out;
}

}  // namespace fathom::plot
