#pragma once
// A sweep's grid with settings that have no value -- their runs diverged or failed, or the
// sweep never ran them (a rate added for one method only) -- completed for the functional
// ANOVA of experiments/hparam_importance.h, as Hutter et al. 2014 decompose a fitted model
// rather than the data where the data are not a full grid. The model here: main effects and
// pairwise interactions (effect-coded), fitted by least squares to the settings' means; where
// the data leave part of it free (a pair of values never run together), the interactions are
// taken as small as possible (base/metrics/least_squares.h, main effects weighted 10^9 times
// cheaper). A missing setting takes the model's prediction.
#include <map>
#include <vector>

#include "base/metrics/least_squares.h"

namespace fathom::experiments {

// A setting: one value index per axis.
using Setting = std::vector<int>;

struct GridCompletion {
  std::map<Setting, double> filled;  // each missing setting's prediction
  double r_squared = 1;              // of the fit over the settings with values
};

// The unknowns of the model over axes with these numbers of values: 1 + sum (L_i - 1) +
// sum_{i<j} (L_i - 1)(L_j - 1).
int second_order_parameters(const std::vector<int>& levels);

// levels: each axis's number of values; observed: the mean of each setting with a value (every
// axis's every value among them); missing: the settings to predict.
GridCompletion complete_grid(const std::vector<int>& levels,
                             const std::map<Setting, double>& observed,
                             const std::vector<Setting>& missing);

// The same fit for many sets of means over the same settings (a bootstrap's draws): the
// model's least-squares system is factored once.
class GridCompleter {
 public:
  // `observed`: the settings with values, in the order fill() takes their means. Throws
  // std::invalid_argument where the system cannot be factored.
  GridCompleter(std::vector<int> levels, std::vector<Setting> observed,
                std::vector<Setting> missing);
  GridCompletion fill(const std::vector<double>& observed_means) const;

 private:
  std::vector<Setting> missing_;
  std::vector<SparseRow> missing_rows_;  // the model's row of each missing setting
  MinNormLeastSquares fit_;              // over the observed settings' rows
};

}  // namespace fathom::experiments
