#pragma once
// The compute-optimal depth against the budget on log-log axes (Hoffmann et al. 2022, arXiv
// 2203.15556, figure 3: the isoFLOP minima against FLOPs with their fitted power law): a series
// per row of its budgets' bracketed optima (experiments/optimum_scaling.h), and the fitted
// x* = k C^a through them, dashed in its colour, named by a and its interval.
#include <vector>

#include "experiments/optimum_scaling.h"
#include "plot/figure.h"

namespace fathom::plot {

// No series for a row without a bracketed optimum; no fit for one without an exponent.
LineFigure optimum_scaling_figure(const std::vector<experiments::OptimumScaling>& scalings);

}  // namespace fathom::plot
