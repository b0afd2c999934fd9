#pragma once
// Learning-rate transfer across depth (what depth-muP -- Yang et al. 2023, "Tensor Programs VI",
// Bordelon et al. 2023 -- and CompleteP -- Dey et al. 2025 -- claim to fix): for a sweep over
// depth x learning rate, each method's best rate at each depth, with an interval, and the slope
// of ln(best rate) against ln(depth). Slope 0: the rate found at one depth serves at another;
// -1: it falls as 1/depth.
//
// The best rate of a curve (experiments/lr_sensitivity.h: the mean over seeds at each rate,
// each seed capped at its l0) is its grid optimum (experiments/grid_optimum.h): the vertex of
// the parabola in x = ln(rate) through the curve's lowest point and its two neighbours --
// between grid points, where a method's optimum usually lies -- or the grid's lowest rate
// itself at an end of the grid, with a 95 % interval: the rates where the curve's slope is within
// noise of zero (experiments/optimum_interval.h). The slope's interval is a bootstrap over seeds
// (rescaled draws, expanded ends).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "db/store.h"
#include "experiments/comparison_table.h"
#include "experiments/grid_optimum.h"
#include "experiments/lr_sensitivity.h"
#include "experiments/text_table.h"

namespace fathom::experiments {

struct BestRate {
  double lr = 0;           // the fitted optimum, exp(vertex); the grid's best where unbracketed
  double grid_lr = 0;      // the rate of the curve's lowest mean
  bool bracketed = false;  // the lowest mean is at neither end of the grid
  // The 95 % interval of `lr` (grid_optimum's: the rates where the slope is within noise of
  // zero); NaN when unbracketed or a rate has one seed.
  double ci_lo = 0, ci_hi = 0;
  bool interval_at_an_end = false;  // it reaches the grid's end: the optimum is not placed
  double interval_df = 0;           // the vertex's three rates' seeds less one each
  std::vector<double> draws;        // ln(best rate) of each bootstrap draw (for slopes)
};

// `rates` ascending (at least 3 for a fit), `values[i]` rate i's seeds' values.
BestRate best_rate(const std::vector<double>& rates, const std::vector<std::vector<double>>& values,
                   int resamples = kLrBootstrapResamples,
                   unsigned long long seed = kLrBootstrapSeed);

struct TransferRow {
  std::string method;  // the curve's label without the depth
  double depth = 0;
  BestRate best;
};

struct TransferSlope {
  std::string method;
  int depths = 0;
  // Least squares of ln(best rate) on ln(depth), and its 95 % bootstrap interval (each depth's
  // draws, from its own stream, paired by index: independent trainings; the ends expanded for
  // every depth's degrees of freedom, pooled); NaN with fewer than 2 depths.
  double slope = 0, ci_lo = 0, ci_hi = 0;
  bool bracketed = true;  // every depth's optimum inside its grid; else the slope is a bound
};

struct LrTransfer {
  std::string metric, depth_key;
  std::vector<TransferRow> rows;  // by method (first seen), then depth ascending
  std::vector<TransferSlope> slopes;
  std::vector<std::string> notes;
};

// From each depth's curves (lr_sensitivity of that depth's runs alone, so its labels name the
// method without the depth).
LrTransfer lr_transfer(const std::vector<std::pair<double, LrSensitivity>>& by_depth,
                       const std::string& depth_key);

// A stored sweep: `depth_key` an axis of two or more values (InputError, field --depth,
// otherwise; "" takes the sweep's one axis whose key ends in "layers", the first of a zip
// group); each depth's curves as load_lr_sensitivity reads them (metric, value, where, label).
LrTransfer load_lr_transfer(const db::Store& store, const std::string& sweep,
                            const std::string& depth_key, const std::string& metric,
                            RunReading value = RunValue::Last, const std::string& where = "",
                            const std::string& label = "");
// The same of runs already selected (a report's one selection; see hparam_importance_of):
// each depth's runs are those of `selected` at that depth, read from no later listing.
LrTransfer lr_transfer_of(const db::Store& store, const SweepRuns& selected,
                          const std::string& depth_key, const std::string& metric,
                          RunReading value = RunValue::Last, const std::string& label = "");

// One row per method and depth (best rate, interval, the grid's best, bracketed), and one per
// method with its slope.
TextTable lr_transfer_table(const LrTransfer& t);
TextTable lr_transfer_slope_table(const LrTransfer& t);

}  // namespace fathom::experiments
