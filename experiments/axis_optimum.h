#pragma once
// The best value of a numeric sweep axis -- the compute-optimal depth at a budget -- from a
// table's row over that axis (experiments/grid_optimum.h: the vertex of the parabola in ln(x)
// through the lowest mean and the two beside it; its interval the x where the curve's slope is
// within noise of zero, experiments/optimum_interval.h), and what may
// be said of it: none from fewer than three points, none at the grid's end, inconclusive where
// its interval reaches an end. `fathom export plot budgets` draws it; `fathom report --at`
// says it under the table at the budget.
#include <optional>
#include <string>
#include <vector>

#include "experiments/comparison_table.h"
#include "experiments/grid_optimum.h"

namespace fathom::experiments {

struct AxisOptimum {
  std::string line;                 // what it is of: a row's label, a figure's series
  std::string axis;                 // the axis's short key ("encoder_layers")
  int points = 0;                   // x values with a value (3 needed for an optimum)
  GridOptimum best;                 // of the values negated where higher is better
  double grid_lo = 0, grid_hi = 0;  // the x values' ends
  bool higher_is_better = false;    // the best is the highest (BLEU), else the lowest
  // The interval reaches an end of the grid: whether the optimum lies inside it is undecided.
  bool inconclusive() const;
  // "best encoder_layers 7.3 (95 % CI 5.1-9.8; the grid's best 6)", "lowest at the grid's
  // end, ...", prefixed by "line: ".
  std::string text() const;
};

// `xs` ascending, `values[i]` the seeds' values at xs[i] (empty: none there, left out).
AxisOptimum axis_optimum(const std::string& line, const std::string& axis,
                         const std::vector<double>& xs,
                         const std::vector<std::vector<double>>& values,
                         bool higher_is_better = false);

// A table of one column as one row: the metric the line, its rows' values the columns (a
// sweep of one axis group, drawn or searched along it); the notes kept.
ComparisonTable as_one_line(const ComparisonTable& t);

// A table read along its numeric axis: a table of one column whose rows are numbers (a sweep of
// one axis group) as one line (as_one_line); any other as it is.
ComparisonTable along_numeric_axis(const ComparisonTable& t);

// "model.encoder_layers" -> "encoder_layers"; a zip group by its first key.
std::string short_axis_key(const std::string& key);

// The key names a depth: it ends in "layers" (model.encoder_layers, model.decoder_layers). What
// a depth axis is taken to be where none is named (lr-transfer's, the Scaling tab's first).
bool names_a_depth(const std::string& key);

// An axis value as a number > 0 (a zip group's "6 / 6" by its first value); none where it is not.
std::optional<double> axis_number(const std::string& label);

// A table's column labels as numbers (a zip group's "6 / 6" by its first value), or empty where
// one is not a number.
std::vector<double> numeric_columns(const ComparisonTable& t);

// The indices of `labels` in ascending order of their values (equal ones as listed): a line is
// read left to right, and an optimum's neighbours are the next smaller and larger values.
std::vector<size_t> columns_by_value(const std::vector<double>& labels);

// The optimum over the columns of each row of `t` (numeric columns, ascending), each cell's
// finished runs' values; empty where the columns are not numbers.
std::vector<AxisOptimum> row_optima(const ComparisonTable& t, const std::string& axis,
                                    bool higher_is_better);

}  // namespace fathom::experiments
