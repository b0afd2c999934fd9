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
  // Air around the points: at the axes' very ends the first and last budget's markers are cut,
  // and a narrow range of depths gets one labelled tick.
  double x_lo = INFINITY, x_hi = 0, y_lo = INFINITY, y_hi = 0;
  for (const auto& s : f.series)
    for (size_t i = 0; i < s.x.size(); ++i) {
      x_lo = std::min(x_lo, s.x[i]), x_hi = std::max(x_hi, s.x[i]);
      y_lo = std::min(y_lo, s.y[i]), y_hi = std::max(y_hi, s.y[i]);
    }
  constexpr double kAir = 1.3;  // a factor each side, on log axes
  if (x_hi > 0) f.x.min = x_lo / kAir, f.x.max = x_hi * kAir;
  if (y_hi > 0) f.y.min = y_lo / kAir, f.y.max = y_hi * kAir;
  return f;
}

}  // namespace fathom::plot
