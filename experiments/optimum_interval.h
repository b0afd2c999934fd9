#pragma once
// A 95 % interval for where a curve measured over seeds on a grid of x values is lowest, by
// inverting a test: an x is in it unless the curve's slope there is significantly away from zero.
// The slope at x is that of the parabola through the three grid points around x (the grid point
// nearest x and its neighbours; the first or last three near an end) -- a linear function of
// their means, so its t statistic has t_{df} with their seeds' variance pooled. At the true
// optimum of a curve that is a parabola near it, the slope is zero and the test rejects 5 % of
// the time whatever the noise did, so the set holds it 95 % of the time: unlike a bootstrap of
// the fitted vertex (-b / 2c, a ratio of noisy quantities, heavier-tailed than its draws know at
// three seeds; it held the truth in 91-92 % at "95 %") and unlike Fieller's interval (Fieller
// 1954, JRSS B 16(2)) on the three points around the lowest mean, whose choice by the same
// noise breaks its exactness. The interval is the stretch of x not rejected that holds the
// fitted vertex: a flat stretch elsewhere (a plateau of diverged runs at the top rates) has a
// slope near zero too, but is cut off by a significant climb. Where the seeds cannot tell the
// curve's bend from noise it reaches the grid's end (inconclusive).
#include <vector>

namespace fathom::experiments {

struct OptimumInterval {
  double lo = 0, hi = 0;  // ln x, within [ln_x.front(), ln_x.back()]; NaN where df < 1
  // (x near points with one seed each: nothing to test their slope against, none rejected)
  double df = 0;  // the seeds less one of the three points around the lowest mean (pooled there)
};

// `ln_x` ascending (at least three), `values[i]` point i's seeds (none empty); lower is better.
// Meant for a lowest mean inside the grid (grid_optimum asks only then); at an end, the stretch
// is the one around the vertex of the three points at that end.
OptimumInterval optimum_interval(const std::vector<double>& ln_x,
                                 const std::vector<std::vector<double>>& values,
                                 double level = 0.95);

}  // namespace fathom::experiments
