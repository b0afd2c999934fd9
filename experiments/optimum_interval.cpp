#include "experiments/optimum_interval.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>
#include <utility>

#include <boost/math/distributions/students_t.hpp>

#include "experiments/grid_optimum.h"

namespace fathom::experiments {
namespace {

struct PointSeeds {
  double mean = 0, n = 0, squares = 0;  // squares: the sum of squared deviations from the mean
};

PointSeeds point_seeds(const std::vector<double>& v) {
  PointSeeds p;
  p.n = static_cast<double>(v.size());
  for (double value : v) p.mean += value;
  p.mean /= p.n;
  for (double value : v) p.squares += (value - p.mean) * (value - p.mean);
  return p;
}

using Pieces = std::vector<std::pair<double, double>>;

// The x in [from, to] where the slope of the parabola through points k-1, k, k+1 is within
// t standard errors of zero: where (A + B x)^2 <= t^2 Var(A + B x), a quadratic in x. Adds them
// to `pieces` as closed intervals (a single x as [x, x]).
void add_accepted(const std::vector<double>& x, const std::vector<PointSeeds>& p, size_t k,
                  double level, double from, double to, Pieces& pieces) {
  const double df = p[k - 1].n + p[k].n + p[k + 1].n - 3;
  if (df < 1) {  // one seed each: nothing to test the slope against, no x rejected
    pieces.emplace_back(from, to);
    return;
  }
  const double pooled = (p[k - 1].squares + p[k].squares + p[k + 1].squares) / df;
  const double t = boost::math::quantile(boost::math::students_t(df), 0.5 + level / 2);
  // Newton's form y = m0 + d1 (x - x0) + c (x - x0)(x - x1): its slope at x is
  // d1 + c (2x - x0 - x1) = sum_j (a_j + b_j x) m_j, the weights read off d1 and c.
  const double x0 = x[k - 1], x1 = x[k], x2 = x[k + 1];
  const double h1 = x1 - x0, h2 = x2 - x1, h = x2 - x0;
  const double w_d1[3] = {-1 / h1, 1 / h1, 0};
  const double w_c[3] = {1 / (h1 * h), -(1 / h1 + 1 / h2) / h, 1 / (h2 * h)};
  double a_sum = 0, b_sum = 0, var_aa = 0, var_ab = 0, var_bb = 0;
  for (int j = 0; j < 3; ++j) {
    const PointSeeds& s = p[k - 1 + static_cast<size_t>(j)];
    const double a = w_d1[j] - w_c[j] * (x0 + x1), b = 2 * w_c[j];
    a_sum += a * s.mean;
    b_sum += b * s.mean;
    var_aa += a * a / s.n * pooled;
    var_ab += a * b / s.n * pooled;
    var_bb += b * b / s.n * pooled;
  }
  const double qa = b_sum * b_sum - t * t * var_bb, qb = 2 * (a_sum * b_sum - t * t * var_ab),
               qc = a_sum * a_sum - t * t * var_aa;
  auto accepted = [&](double at) { return (qa * at + qb) * at + qc <= 0; };
  // The accepted set is an interval, the outside of one, all or nothing: its ends within
  // [from, to] are among from, to and the quadratic's roots there.
  std::vector<double> ends{from, to};
  // A discriminant a rounding below zero where the seeds have no spread: one root, the vertex.
  const double discriminant = qb * qb - 4 * qa * qc;
  if (qa > 0 || (qa < 0 && discriminant >= 0)) {
    for (const double sign : {-1.0, 1.0}) {
      const double root = (-qb + sign * std::sqrt(std::max(0.0, discriminant))) / (2 * qa);
      if (root > from && root < to) ends.push_back(root);
    }
  } else if (qa == 0 && qb != 0 && -qc / qb > from && -qc / qb < to) {
    ends.push_back(-qc / qb);
  }
  std::sort(ends.begin(), ends.end());
  for (size_t i = 0; i + 1 < ends.size(); ++i)  // a stretch between two ends is all in or out
    if (accepted((ends[i] + ends[i + 1]) / 2)) pieces.emplace_back(ends[i], ends[i + 1]);
  for (const double end : ends)
    if (accepted(end)) pieces.emplace_back(end, end);
}

// The run of touching pieces that holds `x`, which one of them does.
std::pair<double, double> piece_holding(Pieces pieces, double x) {
  std::sort(pieces.begin(), pieces.end());
  std::pair<double, double> run = pieces.front();
  for (size_t i = 1; i < pieces.size(); ++i) {
    const double gap = 1e-12 * std::max(1.0, std::fabs(run.second));
    if (pieces[i].first <= run.second + gap) {
      run.second = std::max(run.second, pieces[i].second);
    } else if (run.second >= x) {
      break;  // this run holds x: the next ones lie beyond it
    } else {
      run = pieces[i];
    }
  }
  return run;
}

}  // namespace

OptimumInterval optimum_interval(const std::vector<double>& ln_x,
                                 const std::vector<std::vector<double>>& values, double level) {
  constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
  OptimumInterval out;
  out.lo = out.hi = kNan;
  const size_t n = ln_x.size();
  if (n < 3 || values.size() != n) return out;
  std::vector<PointSeeds> p;
  for (const auto& v : values) p.push_back(point_seeds(v));
  size_t lowest = 0;
  for (size_t i = 1; i < n; ++i)
    if (p[i].mean < p[lowest].mean) lowest = i;
  const size_t around = std::clamp<size_t>(lowest, 1, n - 2);
  out.df = p[around - 1].n + p[around].n + p[around + 1].n - 3;
  if (out.df < 1) return out;
  // The fitted vertex's slope is zero: it is in the set however little the seeds spread.
  const double vertex = parabola_vertex(ln_x[around - 1], ln_x[around], ln_x[around + 1],
                                        p[around - 1].mean, p[around].mean, p[around + 1].mean);
  Pieces pieces{{vertex, vertex}};
  // Point k's stretch: the x nearer it than any other grid point; the first and last three
  // points' parabolas reach the grid's ends.
  for (size_t k = 1; k + 1 < n; ++k) {
    const double from = k == 1 ? ln_x.front() : (ln_x[k - 1] + ln_x[k]) / 2;
    const double to = k + 2 == n ? ln_x.back() : (ln_x[k] + ln_x[k + 1]) / 2;
    add_accepted(ln_x, p, k, level, from, to, pieces);
  }
  // The stretch around the fitted optimum: a flat stretch elsewhere -- a plateau of diverged
  // runs at the top rates, of runs that barely trained at the bottom -- has a slope near zero
  // too, but the curve climbs significantly between it and the optimum: not a minimum.
  std::tie(out.lo, out.hi) = piece_holding(std::move(pieces), vertex);
  return out;
}

}  // namespace fathom::experiments
