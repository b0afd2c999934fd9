#include "plot/budgets_figure.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "base/util/error.h"
#include "db/metric_presentation.h"
#include "experiments/sweep_runs.h"
#include "experiments/value_at_budget.h"
#include "plot/axis_lines.h"

namespace fathom::plot {
namespace {

// One budget's lines: a series per row of the table at it, each with its optimum (and, where
// bracketed, the optimum's parabola after it). InputError naming --x where a column is not a
// number.
void add_budget_lines(const experiments::ComparisonTable& t, const experiments::Budget& at,
                      const BudgetsQuery& q, bool several_budgets, BudgetsFigure& out) {
  if (experiments::numeric_columns(t).empty()) {
    experiments::ComparisonTable one = t;  // the first column that is no number, named
    for (const auto& label : t.col_labels) {
      one.col_labels = {label};
      if (experiments::numeric_columns(one).empty())
        throw InputError("fathom export plot budgets", 0, "--x",
                         q.x + " has the value '" + label +
                             "', not a number > 0: the x axis must be a numeric sweep axis (a "
                             "depth, a width); put a categorical one in --rows");
    }
  }
  AxisLines lines{std::move(out.figure), std::move(out.optima)};
  add_axis_lines(
      t, experiments::short_axis_key(q.x), db::metric::higher_is_better(q.metric).value_or(false),
      [&](size_t r) {
        std::string name = q.rows.empty() ? "" : t.row_labels[r];
        if (several_budgets || name.empty())
          name += (name.empty() ? "" : ", ") + experiments::budget_text(at);
        return name;
      },
      lines);
  out.figure = std::move(lines.figure);
  out.optima = std::move(lines.optima);
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
  std::vector<double> budgets;  // and the tables at them, for the exponent
  std::vector<experiments::ComparisonTable> tables;
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
    budgets.push_back(budget.x);
    tables.push_back(std::move(t));
  }
  const bool one_axis = std::all_of(q.budgets.begin(), q.budgets.end(), [&](const auto& b) {
    return b.axis == q.budgets.front().axis;
  });
  if (one_axis && q.budgets.size() >= size_t(experiments::kScalingBudgets))
    out.scalings = experiments::row_scalings(
        budgets, tables, experiments::short_axis_key(q.x), q.budgets.front().axis,
        db::metric::higher_is_better(q.metric).value_or(false));
  fit_x_axis(out.figure);
  return out;
}

}  // namespace fathom::plot
