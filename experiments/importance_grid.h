#pragma once
// The grid behind a sweep's hyperparameter importance (experiments/hparam_importance.h): its
// swept axes and their values, each setting's runs' values, and the functional ANOVA of a full
// grid of setting means -- shared by the decomposition and its intervals
// (experiments/importance_intervals.h).
#include <map>
#include <string>
#include <vector>

#include "experiments/comparison_table.h"
#include "experiments/hparam_importance.h"

namespace fathom::experiments {

struct Grid {
  std::vector<std::string> axes;                 // varying axes
  std::vector<std::vector<std::string>> levels;  // per axis, first-seen order
  // cell (one level index per axis) -> the values of its runs
  std::map<std::vector<int>, std::vector<double>> values;
};

// The runs' grid: each group of keys (a zip group) one axis, any other key an axis of its own,
// the seed key none; axes with one value are left out.
Grid grid_of(const std::vector<TableRun>& runs, const std::string& seed_key,
             std::vector<std::vector<std::string>> groups);

// "model.norm=pre, train.lr=2e-3": a cell by its axes' values.
std::string cell_text(const Grid& g, const std::vector<int>& cell);

// Every cell of the full grid, in odometer order.
std::vector<std::vector<int>> all_cells(const Grid& g);

// A value per cell (or per level of some axes), keyed by the levels.
using CellMeans = std::map<std::vector<int>, double>;

// The functional ANOVA of a full grid of means: V, the main effects of each axis and the
// interactions of each pair (its terms of orders 1 and 2), each order by variance, with their
// shares of V, and the rest (orders 3 and up).
struct Decomposition {
  double total_variance = 0;
  std::vector<ImportanceTerm> terms;
  double higher_order_share = 0;
};

Decomposition decompose(const Grid& g, const CellMeans& mean);

}  // namespace fathom::experiments
