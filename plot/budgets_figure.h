#pragma once
// A metric against a numeric sweep axis (depth, width) at one or more equal budgets: the
// isoFLOP view of depth-scaling studies (Dey et al. 2025, arXiv 2505.01618, compare
// parameterizations by loss against depth at fixed training FLOPs; Hoffmann et al. 2022,
// arXiv 2203.15556, section 3.2, the isoFLOP profiles). One line per (row, budget): each point
// a table cell at that budget (experiments/value_at_budget.h: each run's last validation
// inside it), the mean over its seeds with its 95 % t-interval as an error bar.
#include <string>
#include <vector>

#include "db/store.h"
#include "experiments/axis_optimum.h"
#include "experiments/comparison_table.h"
#include "experiments/optimum_scaling.h"
#include "plot/figure.h"

namespace fathom::plot {

struct BudgetsQuery {
  std::string sweep;
  std::string x;     // a sweep axis with numeric values, e.g. model.encoder_layers
  std::string rows;  // one line per value of this axis (a+b: a zip group); "": one line
  std::string metric = "valid_loss";
  std::string where;                         // experiments/run_query.h's filter of the sweep's runs
  std::vector<experiments::Budget> budgets;  // at least one; a least one found per budget
  // A cell's value: the mean over its runs, or its best variant's (chosen on select_by at the
  // budget), as a report's table beside the figure chose.
  experiments::CellAgg agg = experiments::CellAgg::Mean;
  std::string select_by = "valid_loss";
};

struct BudgetsFigure {
  LineFigure figure;  // with each bracketed optimum's parabola, dashed, in its line's colour
  std::vector<experiments::AxisOptimum> optima;  // one per line (the figure draws its parabola)
  std::vector<double> optimum_budgets;           // the budget each of optima is read at (found)
  // With three budgets or more of one axis: how each row's best x grows with the budget
  // (experiments/optimum_scaling.h), one per row.
  std::vector<experiments::OptimumScaling> scalings;
  // Each budget's table notes (the budget found for a least one, runs left out or read short
  // of it), prefixed by the budget.
  std::vector<std::string> notes;
};

// InputError naming the option: no budget, an x axis that is not a sweep axis or whose values
// are not numbers, or what the tables refuse (a test metric at a budget, an unknown metric).
BudgetsFigure budgets_figure(const db::Store& store, const BudgetsQuery& query);

}  // namespace fathom::plot
