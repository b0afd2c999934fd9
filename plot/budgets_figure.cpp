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
  for (const auto& label : t.col_labels)
    if (!experiments::axis_number(label))
      throw InputError("fathom export plot budgets", 0, "--x",
                       q.x + " has the value '" + label +
                           "', not a number > 0: the x axis must be a numeric sweep axis (a "
                           "depth, a width); put a categorical one in --rows");
  add_axis_lines(
      t, experiments::short_axis_key(q.x), db::metric::higher_is_better(q.metric).value_or(false),
      [&](size_t r) {
        std::string name = q.rows.empty() ? "" : t.row_labels[r];
        if (several_budgets || name.empty())
          name += (name.empty() ? "" : ", ") + experiments::budget_text(at);
        return name;
      },
      out.figure, out.optima);
}

// The tables' refusals (experiments/comparison_table.h) name `fathom export table` and its
// --rows and --cols; here the depth axis is --x (the table's columns, or its rows where there
// are no lines) and the lines are --rows.
InputError as_budgets_error(const InputError& e, const BudgetsQuery& q) {
  if (e.file() != "fathom export table") return e;
  std::string field = e.field(), message = e.message();
  if (field == "--cols" || (field == "--rows" && q.rows.empty())) field = "--x";
  if (q.rows == q.x) {
    field = "--rows";
    message = "--rows and --x are the same axis";
  }
  return InputError("fathom export plot budgets", e.line(), field, message);
}

BudgetsFigure budgets_figure_of(const db::Store& store, const BudgetsQuery& q) {
  if (q.budgets.empty())
    throw InputError("fathom export plot budgets", 0, "--at", "name at least one budget");
  if (q.x.empty())
    throw InputError("fathom export plot budgets", 0, "--x", "name the numeric sweep axis");
  BudgetsFigure out;
  out.figure.x.label = experiments::short_axis_key(q.x);
  out.figure.y.label = q.metric;
  experiments::TableOptions o;
  // Without rows, the x axis is the table's rows and its one column is the line.
  o.rows = q.rows.empty() ? q.x : q.rows;
  o.cols = q.rows.empty() ? "" : q.x;
  o.metric = q.metric;
  o.spread = experiments::Spread::Ci95;
  o.agg = q.agg;
  o.select_by = q.select_by;
  // The runs and their tags once (most of a table's reading); each budget reads their curves.
  const experiments::SweepRuns selected = experiments::select_sweep_runs(store, q.sweep, q.where);
  const std::vector<experiments::TableRun> loaded =
      experiments::load_table_runs(store, selected, q.metric, {o.rows, o.cols});
  experiments::CurveCache curves;  // each run's curves read once for every budget
  std::vector<double> budgets;     // and the tables at them, for the exponent
  std::vector<experiments::ComparisonTable> tables;
  for (const experiments::Budget& asked : q.budgets) {
    std::vector<experiments::TableRun> runs = loaded;
    experiments::TableOptions read = o;
    read.at = asked;  // a least budget comes back found
    const std::vector<std::string> left_out =
        experiments::read_run_values(runs, store, read, "fathom export plot budgets", &curves);
    experiments::ComparisonTable t = experiments::build_comparison_table(runs, read);
    if (auto note = selected.note()) t.notes.push_back(*note);
    t.notes.insert(t.notes.end(), left_out.begin(), left_out.end());
    const experiments::Budget budget = *read.at;
    if (q.rows.empty()) t = experiments::as_one_line(t);  // the line, a column per x value
    // The budget as the tables found it: a least one's number is in the notes.
    const std::string said = experiments::budget_text(budget);
    for (const auto& n : t.notes)  // a note that names the budget already needs no prefix
      out.notes.push_back(n.rfind(said, 0) == 0 ? n : said + ": " + n);
    add_budget_lines(t, budget, q, q.budgets.size() > 1, out);
    out.optimum_budgets.resize(out.optima.size(), budget.x);
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

}  // namespace

BudgetsFigure budgets_figure(const db::Store& store, const BudgetsQuery& q) {
  try {
    return budgets_figure_of(store, q);
  } catch (const InputError& e) {
    throw as_budgets_error(e, q);
  }
}

}  // namespace fathom::plot
