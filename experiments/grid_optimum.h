#pragma once
// Where a curve measured on a grid of x values (learning rates, depths) is lowest, between its
// grid points: the vertex of the parabola in ln(x) through the lowest mean and its two
// neighbours, or the lowest mean's x itself at an end of the grid (the optimum is not
// bracketed: the true one may lie beyond it). Its 95 % interval is the x where the curve's
// slope, the local parabola's, is within noise of zero (experiments/optimum_interval.h); it
// reaches the grid's end where the seeds cannot place the optimum. Its bootstrap draws (each grid
// point's seeds resampled, each drawn mean rescaled about the point's mean by sqrt(n/(n-1)), the
// draw's optimum found as the estimate's) carry it into the intervals of what is fitted over
// several optima: the slope of the best rate against depth (experiments/lr_transfer.h). The best
// learning rate of a curve and the best depth at a budget (plot/budgets_figure.h) are both this.
#include <string>
#include <utility>
#include <vector>

namespace fathom::experiments {

// The x of the vertex of the parabola through (x0, y0), (x1, y1), (x2, y2), x0 < x1 < x2, kept
// within [x0, x2]; x1 when the three points are not convex (a flat or falling middle).
double parabola_vertex(double x0, double x1, double x2, double y0, double y1, double y2);

// ln(optimum) of one set of means (lower is better) over ln(x) ascending: the vertex around the
// lowest mean, or the lowest mean's ln(x) at an end of the grid; `bracketed` says which.
double log_grid_optimum(const std::vector<double>& ln_x, const std::vector<double>& means,
                        bool* bracketed);

// The `tail` and 1 - tail quantiles of `draws` (linear between order statistics: Hyndman & Fan
// type 7; an infinite neighbour -- a critical batch's unbounded draw -- taken as it is); not
// empty. Every interval over seeds reads them at expanded_percentile_tail
// (base/metrics/statistics.h).
std::pair<double, double> percentiles(std::vector<double> draws, double tail);

// The least-squares slope of y on x (a best learning rate's or depth's growth on a log-log
// scale); NaN for fewer than two distinct x.
double ols_slope(const std::vector<double>& x, const std::vector<double>& y);

// An optimum, its interval or a grid value as its tables and figures print it: "%.3g".
std::string three_digits(double v);

struct GridOptimum {
  double x = 0;            // the fitted optimum, exp(vertex); the grid's best where unbracketed
  double grid_x = 0;       // the x of the lowest mean
  bool bracketed = false;  // the lowest mean is at neither end of the grid
  // The 95 % interval of `x` (experiments/optimum_interval.h: the x where the curve's slope is
  // within noise of zero); NaN when unbracketed or a grid point has one seed.
  double ci_lo = 0, ci_hi = 0;
  // The interval reaches an end of the grid: whether the optimum lies inside it is undecided.
  bool interval_at_an_end = false;
  double interval_df = 0;     // the vertex's three points' seeds less one each (variance pooled)
  std::vector<double> draws;  // ln(optimum) of each (rescaled) bootstrap draw
};

// `xs` ascending and > 0, `values[i]` x i's seeds' values (lower is better; none empty).
GridOptimum grid_optimum(const std::vector<double>& xs,
                         const std::vector<std::vector<double>>& values, int resamples,
                         unsigned long long seed);

}  // namespace fathom::experiments
