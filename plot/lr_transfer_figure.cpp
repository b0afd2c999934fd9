#include "plot/lr_transfer_figure.h"

#include <cmath>
#include <cstdio>

namespace fathom::plot {

CurveFigure lr_transfer_figure(const experiments::LrTransfer& t) {
  CurveFigure f;
  const auto dot = t.depth_key.rfind('.');
  f.x = Axis{dot == std::string::npos ? t.depth_key : t.depth_key.substr(dot + 1), Scale::Log,
             std::nullopt, std::nullopt};
  f.y = Axis{"best learning rate", Scale::Log, std::nullopt, std::nullopt};
  f.band = "ci95";
  for (const auto& s : t.slopes) {
    Curve c;
    char slope[96];
    if (std::isnan(s.slope))
      std::snprintf(slope, sizeof slope, " (1 depth)");
    else
      std::snprintf(slope, sizeof slope, " (slope %.2f%s)", s.slope,
                    s.bracketed ? "" : ", an optimum unbracketed");
    c.label = s.method + slope;
    c.metric = t.metric;
    c.colour_key = s.method;
    for (const auto& r : t.rows) {
      if (r.method != s.method) continue;
      c.step.push_back(r.depth);
      c.value.push_back(r.best.lr);
      // No interval (unbracketed, one seed): no shading at that depth.
      c.band_lo.push_back(std::isnan(r.best.ci_lo) ? r.best.lr : r.best.ci_lo);
      c.band_hi.push_back(std::isnan(r.best.ci_hi) ? r.best.lr : r.best.ci_hi);
    }
    f.curves.push_back(std::move(c));
  }
  return f;
}

}  // namespace fathom::plot
