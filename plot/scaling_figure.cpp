#include "plot/scaling_figure.h"

#include <algorithm>
#include <cmath>

#include "experiments/grid_optimum.h"

namespace fathom::plot {

LineFigure optimum_scaling_figure(const std::vector<experiments::OptimumScaling>& scalings) {
  LineFigure f;
  if (!scalings.empty()) {
    f.x.label = scalings.front().budget_axis +
                (scalings.front().budget_axis == "compute" ? " (training FLOPs)" : "");
    f.y.label = "best " + scalings.front().axis;
  }
  f.x.scale = f.y.scale = Scale::Log;
  for (const auto& s : scalings) {
    if (s.fit_budgets.empty()) continue;
    LineSeries points;
    points.name = s.line;
    points.x = s.fit_budgets;
    points.y = s.fit_best;
    f.series.push_back(points);
    if (std::isnan(s.exponent) || std::isnan(s.log_coefficient)) continue;
    // A power law is a straight line on log-log axes: its two ends draw it.
    LineSeries fit;
    fit.fit_of = s.line;
    fit.name = "C^" + experiments::three_digits(s.exponent) +
               (std::isnan(s.ci_lo) ? ""
                                    : " (95 % CI " + experiments::three_digits(s.ci_lo) + " to " +
                                          experiments::three_digits(s.ci_hi) + ")");
    for (double c : {s.budget_lo, s.budget_hi}) {
      fit.x.push_back(c);
      fit.y.push_back(std::exp(s.log_coefficient + s.exponent * std::log(c)));
    }
    f.series.push_back(fit);
  }
  return f;
}

}  // namespace fathom::plot
