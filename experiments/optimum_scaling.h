#pragma once
// How a line's best depth grows with the budget: the compute-optimal depth's exponent. At each
// budget the best x is experiments/axis_optimum.h's (the vertex of the parabola in ln x through
// the best mean and its two neighbours); over the budgets where it is bracketed, ln x*(C) =
// ln k + a ln C by least squares -- Hoffmann et al. 2022's second approach (arXiv 2203.15556,
// s3.2: N_opt proportional to C^a from the isoFLOP profiles' minima), with depth in place of
// parameters. a's 95 % interval is a bootstrap over runs that is joint across the budgets: the
// same runs are read at every budget (experiments/value_at_budget.h), so their optima are not
// independent, and a draw resamples each x's runs once and reads the drawn runs at every budget.
// As grid_optimum's (experiments/grid_optimum.h), each drawn mean is rescaled by sqrt(n/(n-1))
// and the ends are the expanded percentile's for the runs less one an x, pooled.
#include <cstdint>
#include <string>
#include <vector>

#include "experiments/comparison_table.h"

namespace fathom::experiments {

// One line's cells at one budget: `cells[i]` at xs[i] (xs ascending, > 0); a cell without a
// value is left out, as the budget's optimum leaves it.
struct BudgetLine {
  double budget = 0;
  std::vector<double> xs;
  std::vector<TableCell> cells;
};

struct OptimumScaling {
  std::string line;                     // the line it is of ("norm = post")
  std::string axis;                     // the x axis's short key ("encoder_layers")
  std::string budget_axis;              // compute | tokens | update
  int budgets = 0;                      // budgets whose optimum is bracketed: the fit's points
  int budgets_asked = 0;                // budgets with the line
  double budget_lo = 0, budget_hi = 0;  // the fit's budgets' range
  // The fit's points: each bracketed budget and its best x (the figure of x* against C).
  std::vector<double> fit_budgets, fit_best;
  double exponent = 0;          // a; NaN without a fit
  double log_coefficient = 0;   // ln k: x* = k C^a; NaN without a fit
  double ci_lo = 0, ci_hi = 0;  // a's 95 % interval; NaN with one run an x
  double interval_df = 0;       // each x's runs less one, pooled: where its ends were read
  // The interval holds 0 inside it: whether the best x grows or shrinks with the budget is
  // undecided.
  bool inconclusive() const;
  // "norm = post: best encoder_layers grows as compute^0.31 (95 % CI 0.12-0.5) over 4 budgets,
  // 1e+10-1e+11", or why there is none ("2 of 5 budgets bracket the optimum (3 needed)").
  std::string text() const;
};

// A fit needs this many budgets whose optimum is bracketed (two always lie on a line).
inline constexpr int kScalingBudgets = 3;

OptimumScaling optimum_scaling(const std::string& line, const std::string& axis,
                               const std::string& budget_axis, const std::vector<BudgetLine>& at,
                               bool higher_is_better);

// Each row's exponent over one sweep's tables at `budgets` (ascending or not; one axis), whose
// columns are the numeric axis (numeric_columns); rows matched by label, in the first table's
// order. Empty where the columns are not numbers.
std::vector<OptimumScaling> row_scalings(const std::vector<double>& budgets,
                                         const std::vector<ComparisonTable>& tables,
                                         const std::string& axis, const std::string& budget_axis,
                                         bool higher_is_better);

}  // namespace fathom::experiments
