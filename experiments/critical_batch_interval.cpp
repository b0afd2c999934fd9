#include "experiments/critical_batch_interval.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "base/metrics/statistics.h"
#include "experiments/grid_optimum.h"
#include "experiments/reach_text.h"

namespace fathom::experiments {
namespace {

// B_crit of a fit, at its limit where the fit shows no diminishing returns: +inf where updates
// fall as fast as 1 / B or faster (S_min not positive, slope positive), 0 where they do not
// fall with the batch (slope not positive).
double bounded_b_crit(const CriticalBatchFit& f) {
  if (f.diminishing) return f.b_crit;
  const double slope = f.s_min == 0 ? f.b_crit : f.s_min * f.b_crit;  // S_min B_crit
  return slope > 0 ? INFINITY : 0.0;
}

// The draws' quantiles at `tail` and 1 - tail; NaN where there are none.
std::pair<double, double> interval(std::vector<double> draws, double tail) {
  if (draws.empty()) return {NAN, NAN};
  return percentiles(std::move(draws), tail);
}

// The fit's cells' within-cell degrees of freedom, pooled: sum over the table's best cells of
// their runs less one -- what the draws know each cell's spread from.
double pooled_df(const ReachTable& t) {
  double df = 0;
  for (size_t i : t.best)
    if (!t.cells[i].run_updates.empty())
      df += static_cast<double>(t.cells[i].run_updates.size() - 1);
  return df;
}

// One cell drawn: its runs' updates and B_simple, resampled with replacement.
struct DrawnCell {
  bool complete = true;
  double updates = 0, b_simple = NAN;
};

// A resampled mean of n values spreads with variance (n - 1) / n of s^2 / n: a third short at
// three seeds a cell. Its deviation from the cell's mean is scaled by sqrt(n / (n - 1)), which
// makes that variance s^2 / n (the factor (n - 1) / n of the bootstrap's variance of a mean:
// Efron & Tibshirani 1993, ch. 5).
// Neither updates nor a noise scale is negative: a cell whose runs spread wider than their
// mean could be stretched below 0, and stops at 0.
double rescaled(double drawn, double centre, size_t n) {
  if (n < 2 || !std::isfinite(drawn) || !std::isfinite(centre)) return drawn;
  return std::max(0.0, rescaled_bootstrap_mean(drawn, centre, n));
}

DrawnCell draw_cell(const ReachCell& c, std::mt19937_64& random) {
  DrawnCell d;
  const size_t n = c.run_updates.size();
  double updates = 0, b_sum = 0;
  size_t b_count = 0;
  for (size_t k = 0; k < n; ++k) {
    const size_t pick = random() % n;
    if (std::isnan(c.run_updates[pick])) d.complete = false;
    updates += c.run_updates[pick];
    if (pick < c.run_b_simple.size() && !std::isnan(c.run_b_simple[pick]))
      b_sum += c.run_b_simple[pick], ++b_count;
  }
  d.updates = rescaled(updates / static_cast<double>(n), c.updates, n);
  if (b_count)
    d.b_simple = rescaled(b_sum / static_cast<double>(b_count), c.b_simple,
                          static_cast<size_t>(c.b_simple_runs));
  return d;
}

}  // namespace

void add_critical_batch_interval(CriticalBatchFit& fit, const ReachTable& t, int draws,
                                 uint64_t seed) {
  // Rows in the table's order: each a run of consecutive cells.
  std::vector<std::pair<size_t, size_t>> rows;  // [first, end) of each row's cells
  for (size_t i = 0; i < t.cells.size(); ++i)
    if (rows.empty() || t.cells[i].row != t.cells[rows.back().first].row)
      rows.emplace_back(i, i + 1);
    else
      rows.back().second = i + 1;
  const bool with_b_simple = best_cells_b_simple(t).has_value();
  std::mt19937_64 random(seed);
  std::vector<double> b_crits, ratios;
  int kept = 0;
  fit.unfit = 0;
  for (int d = 0; d < draws; ++d) {
    std::vector<double> batch, updates, b_simple;
    bool same = true;
    for (const auto& [first, end] : rows) {
      std::optional<size_t> best;
      DrawnCell best_cell;
      for (size_t i = first; i < end; ++i) {
        if (t.cells[i].run_updates.empty()) continue;
        const DrawnCell c = draw_cell(t.cells[i], random);
        if (c.complete && (!best || c.updates < best_cell.updates)) best = i, best_cell = c;
      }
      const bool chosen =
          std::find(t.best.begin(), t.best.end(), best.value_or(SIZE_MAX)) != t.best.end();
      same = same && best && chosen;
      if (!best) continue;
      batch.push_back(t.cells[*best].tokens_per_update);
      updates.push_back(best_cell.updates);
      b_simple.push_back(best_cell.b_simple);
    }
    const auto f = fit_critical_batch(batch, updates);
    if (!f) {
      ++fit.unfit;
      continue;
    }
    kept += same;
    const double b_crit = bounded_b_crit(*f);
    b_crits.push_back(b_crit);
    if (!with_b_simple) continue;
    double log_sum = 0;
    bool defined = true;
    for (double b : b_simple) {
      defined = defined && b > 0 && std::isfinite(b);
      if (defined) log_sum += std::log(b);
    }
    if (defined)
      ratios.push_back(b_crit / std::exp(log_sum / static_cast<double>(b_simple.size())));
  }
  fit.draws = static_cast<int>(b_crits.size());
  fit.best_kept = fit.draws ? static_cast<double>(kept) / fit.draws : NAN;
  fit.interval_df = pooled_df(t);
  const double tail = expanded_percentile_tail(fit.interval_df);
  std::tie(fit.b_crit_lo, fit.b_crit_hi) = interval(b_crits, tail);
  fit.ratio_draws = static_cast<int>(ratios.size());
  if (!with_b_simple) return;
  // A draw whose best cells read no B_simple has a ratio that could be anything: the interval
  // takes it at 0 for its low end and at +inf for its high end, so that leaving such draws out
  // cannot narrow it.
  const size_t unknown = b_crits.size() - ratios.size();
  std::vector<double> low = ratios, high = ratios;
  low.insert(low.end(), unknown, 0.0);
  high.insert(high.end(), unknown, INFINITY);
  fit.ratio_lo = interval(low, tail).first;
  fit.ratio_hi = interval(high, tail).second;
}

}  // namespace fathom::experiments
