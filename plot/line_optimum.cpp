// The parabola of a budgets figure's line's optimum (plot/line_optimum.h).
#include <cmath>
#include <cstdio>

#include "plot/line_optimum.h"

namespace fathom::plot {
namespace {

// The parabola through (x0, y0), (x1, y1), (x2, y2) at x (Lagrange's form).
double parabola_at(const double (&px)[3], const double (&py)[3], double x) {
  double y = 0;
  for (int i = 0; i < 3; ++i) {
    double term = py[i];
    for (int j = 0; j < 3; ++j)
      if (j != i) term *= (x - px[j]) / (px[i] - px[j]);
    y += term;
  }
  return y;
}

}  // namespace

std::optional<LineSeries> optimum_parabola(const experiments::AxisOptimum& o, const LineSeries& s) {
  if (o.points < 3 || !o.best.bracketed) return std::nullopt;
  std::vector<double> xs, ys;  // the points with a value, as the optimum was found over
  for (size_t i = 0; i < s.x.size(); ++i)
    if (!std::isnan(s.y[i])) {
      xs.push_back(s.x[i]);
      ys.push_back(s.y[i]);
    }
  size_t low = 0;
  for (size_t i = 1; i < ys.size(); ++i)
    if (o.higher_is_better ? ys[i] > ys[low] : ys[i] < ys[low]) low = i;
  if (low == 0 || low + 1 >= xs.size()) return std::nullopt;
  const double px[3] = {std::log(xs[low - 1]), std::log(xs[low]), std::log(xs[low + 1])};
  const double py[3] = {ys[low - 1], ys[low], ys[low + 1]};
  LineSeries fit;
  fit.fit_of = s.name;
  fit.name = "best " + experiments::three_digits(o.best.x) +
             (std::isnan(o.best.ci_lo)
                  ? ""
                  : (o.inconclusive() ? "?"
                                      : " (95 % CI " + experiments::three_digits(o.best.ci_lo) +
                                            "-" + experiments::three_digits(o.best.ci_hi) + ")"));
  constexpr int kSamples = 48;
  for (int k = 0; k <= kSamples; ++k) {
    const double x = xs[low - 1] + (xs[low + 1] - xs[low - 1]) * k / kSamples;
    fit.x.push_back(x);
    fit.y.push_back(parabola_at(px, py, std::log(x)));
  }
  return fit;
}

}  // namespace fathom::plot
