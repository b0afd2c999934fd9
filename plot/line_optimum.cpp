// The best x of a budgets figure's line (plot/budgets_figure.h: LineOptimum), what is said of
// it, and its parabola drawn.
#include <cmath>
#include <cstdio>

#include "plot/budgets_figure.h"
#include "plot/line_optimum.h"

namespace fathom::plot {
namespace {

constexpr int kOptimumResamples = 2000;
constexpr unsigned long long kOptimumSeed = 20220329;  // Hoffmann et al.'s arXiv date

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", v);
  return text;
}

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

bool LineOptimum::inconclusive() const {
  if (!best.bracketed || std::isnan(best.ci_lo)) return false;
  return best.ci_lo <= grid_lo * (1 + 1e-9) || best.ci_hi >= grid_hi * (1 - 1e-9);
}

std::string LineOptimum::text() const {
  const std::string head = line + ": ";
  if (points < 3)
    return head + "no optimum: " + std::to_string(points) + (points == 1 ? " point" : " points") +
           " with a value at the budget (3 needed)";
  if (!best.bracketed)
    return head + "lowest at the grid's end, " + axis + " " + number(best.grid_x) +
           ": the optimum may lie beyond it (extend the grid to bracket it)";
  const std::string best_x = "best " + axis + " " + number(best.x);
  if (std::isnan(best.ci_lo))
    return head + best_x + " (the grid's best " + number(best.grid_x) +
           "; a value with one seed: no interval)";
  const std::string ci = "95 % CI " + number(best.ci_lo) + "-" + number(best.ci_hi);
  if (inconclusive())
    return head + best_x + ", " + ci + " reaches the grid's end: inconclusive whether the " +
           "optimum lies inside " + number(grid_lo) + "-" + number(grid_hi);
  return head + best_x + " (" + ci + "; the grid's best " + number(best.grid_x) + ")";
}

LineOptimum line_optimum(const LineSeries& s, const std::vector<std::vector<double>>& values,
                         const std::string& axis) {
  LineOptimum o;
  o.line = s.name;
  o.axis = axis;
  std::vector<double> xs;
  std::vector<std::vector<double>> kept;
  for (size_t i = 0; i < s.x.size(); ++i) {
    if (std::isnan(s.y[i]) || values[i].empty()) continue;
    xs.push_back(s.x[i]);
    kept.push_back(values[i]);
  }
  o.points = static_cast<int>(xs.size());
  if (xs.empty()) return o;
  o.grid_lo = xs.front();
  o.grid_hi = xs.back();
  if (o.points >= 3) o.best = experiments::grid_optimum(xs, kept, kOptimumResamples, kOptimumSeed);
  return o;
}

std::optional<LineSeries> optimum_parabola(const LineOptimum& o, const LineSeries& s) {
  if (o.points < 3 || !o.best.bracketed) return std::nullopt;
  std::vector<double> xs, ys;  // the points with a value, as the optimum was found over
  for (size_t i = 0; i < s.x.size(); ++i)
    if (!std::isnan(s.y[i])) {
      xs.push_back(s.x[i]);
      ys.push_back(s.y[i]);
    }
  size_t low = 0;
  for (size_t i = 1; i < ys.size(); ++i)
    if (ys[i] < ys[low]) low = i;
  if (low == 0 || low + 1 >= xs.size()) return std::nullopt;
  const double px[3] = {std::log(xs[low - 1]), std::log(xs[low]), std::log(xs[low + 1])};
  const double py[3] = {ys[low - 1], ys[low], ys[low + 1]};
  LineSeries fit;
  fit.fit_of = s.name;
  fit.name = "best " + number(o.best.x) +
             (std::isnan(o.best.ci_lo) ? ""
                                       : (o.inconclusive() ? "?"
                                                           : " (95 % CI " + number(o.best.ci_lo) +
                                                                 "-" + number(o.best.ci_hi) + ")"));
  constexpr int kSamples = 48;
  for (int k = 0; k <= kSamples; ++k) {
    const double x = xs[low - 1] + (xs[low + 1] - xs[low - 1]) * k / kSamples;
    fit.x.push_back(x);
    fit.y.push_back(parabola_at(px, py, std::log(x)));
  }
  return fit;
}

}  // namespace fathom::plot
