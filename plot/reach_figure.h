#pragma once
// The time-to-target figure (experiments/time_to_target.h) drawn as McCandlish et al. 2018 read a
// batch-size study ("An empirical model of large-batch training", arXiv 1812.06162, s2.2):
// updates to the target against the batch (target tokens per update), both on log axes. A line
// per column (the rate) through its cells whose every run got there, each point its mean with
// the 95 % t-interval; with columns, each row's best cell on a line of its own; where fitted, the
// model S = S_min (1 + B_crit / B) over the best cells, dashed, and B_simple where they got there
// (runs that read train.noise_scale) as a vertical dashed line. A cell some run never finished
// in is left out: its mean over the runs that did would flatter it. Qt-free: a LineFigure the
// CLI (`fathom export plot reach`) and the Time to target tab draw alike.
#include <optional>

#include "experiments/time_to_target.h"
#include "plot/figure.h"

namespace fathom::plot {

// The best cells' line's legend entry, which the fit is drawn as a fit of.
inline constexpr const char* kBestCellsSeries = "best of each row";

LineFigure reach_figure(const experiments::ReachTable& t, const experiments::ReachOptions& o,
                        const std::optional<experiments::CriticalBatchFit>& fit = std::nullopt,
                        std::optional<double> b_simple = std::nullopt);

}  // namespace fathom::plot
