#include "plot/lr_sensitivity_figure.h"

#include <cmath>
#include <cstdio>

namespace fathom::plot {

CurveFigure lr_sensitivity_figure(const experiments::LrSensitivity& s, bool sensitivity_in_legend) {
  CurveFigure f;
  f.x = Axis{"learning rate", Scale::Log, std::nullopt, std::nullopt};
  f.y = Axis{s.metric, Scale::Linear, std::nullopt, std::nullopt};
  f.band = "minmax";
  for (const auto& curve : s.curves) {
    Curve c;
    char sensitivity[96];
    if (std::isnan(curve.sensitivity))  // one rate, or short of the common range
      std::snprintf(sensitivity, sizeof sensitivity, " (sensitivity n/a)");
    else if (std::isnan(curve.ci_lo))  // one seed at some rate: nothing to resample
      std::snprintf(sensitivity, sizeof sensitivity, " (sensitivity %.3g)", curve.sensitivity);
    else
      std::snprintf(sensitivity, sizeof sensitivity, " (sensitivity %.3g [%.3g, %.3g])",
                    curve.sensitivity, curve.ci_lo, curve.ci_hi);
    c.label = sensitivity_in_legend ? curve.label + sensitivity : curve.label;
    c.metric = s.metric;
    c.colour_key = curve.label;
    for (const auto& p : curve.points) {
      c.step.push_back(p.lr);
      c.value.push_back(p.mean);
      c.band_lo.push_back(p.lo);
      c.band_hi.push_back(p.hi);
      c.count.push_back(p.seeds);
      if (p.diverged > 0) c.ends.push_back({p.lr, p.loss0, curve.label});
    }
    f.curves.push_back(std::move(c));
  }
  return f;
}

}  // namespace fathom::plot
