#include "plot/reach_figure.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "experiments/report_numbers.h"

namespace fathom::plot {
namespace {

// A cell the figure shows: every run of it reached the target.
bool complete(const experiments::ReachCell& c) {
  return c.runs > 0 && c.reached == c.runs && c.updates > 0 && c.tokens_per_update > 0;
}

// "train.lr=0.001"; a zip group's column by its first key, which the others vary with:
// "train.update_tokens=256" for "train.update_tokens+train.max_updates=256 / 500".
std::string column_name(const std::string& cols, const std::string& col) {
  return cols.substr(0, cols.find('+')) + "=" + col.substr(0, col.find(" / "));
}

// The cells' points in ascending batch, each with its interval's half-width.
LineSeries points(std::string name, std::vector<const experiments::ReachCell*> cells) {
  std::sort(cells.begin(), cells.end(), [](const auto* a, const auto* b) {
    return a->tokens_per_update < b->tokens_per_update;
  });
  LineSeries s;
  s.name = std::move(name);
  for (const auto* c : cells) {
    s.x.push_back(c->tokens_per_update);
    s.y.push_back(c->updates);
    s.err.push_back(c->updates_ci95);
  }
  return s;
}

std::string bound(double v) { return std::isinf(v) ? "∞" : experiments::cell_number(v, "%.0f"); }

// S_min (1 + B_crit / B) on 64 batches evenly spaced in log B over the fitted points' range;
// a value not above zero (a fit without diminishing returns) has no place on a log axis.
LineSeries fit_curve(const experiments::CriticalBatchFit& fit, double lo, double hi,
                     const std::string& of) {
  LineSeries s;
  s.name = "S_min (1 + B_crit / B): B_crit " + experiments::cell_number(fit.b_crit, "%.0f");
  if (fit.draws > 0)  // the bootstrap's 95 % interval (experiments/critical_batch_interval.h)
    s.name += " [" + bound(fit.b_crit_lo) + ", " + bound(fit.b_crit_hi) + "]";
  s.name += ", S_min " + experiments::cell_number(fit.s_min, "%.0f") + ", R² " +
            experiments::cell_number(fit.r2, "%.2f");
  s.fit_of = of;
  constexpr int kPoints = 64;
  for (int i = 0; i < kPoints; ++i) {
    const double b = lo * std::pow(hi / lo, static_cast<double>(i) / (kPoints - 1));
    const double updates = fit.s_min * (1 + fit.b_crit / b);
    if (updates <= 0) continue;
    s.x.push_back(b);
    s.y.push_back(updates);
  }
  return s;
}

}  // namespace

LineFigure reach_figure(const experiments::ReachTable& t, const experiments::ReachOptions& o,
                        const std::optional<experiments::CriticalBatchFit>& fit,
                        std::optional<double> b_simple) {
  LineFigure f;
  const std::string target = o.metric + " " + experiments::cell_number(o.target);
  f.title = "updates to " + target;
  f.x = Axis{"target tokens per update (B)", Scale::Log, std::nullopt, std::nullopt};
  f.y = Axis{"updates to " + target, Scale::Log, std::nullopt, std::nullopt};
  // A line per column, in the table's order of columns.
  std::vector<std::string> cols;
  for (const auto& c : t.cells)
    if (std::find(cols.begin(), cols.end(), c.col) == cols.end()) cols.push_back(c.col);
  for (const auto& col : cols) {
    std::vector<const experiments::ReachCell*> cells;
    for (const auto& c : t.cells)
      if (c.col == col && complete(c)) cells.push_back(&c);
    if (cells.empty()) continue;
    f.series.push_back(points(o.cols.empty() ? "every run" : column_name(o.cols, col), cells));
  }
  // One column: its line is the rows' best already.
  // A run without target_tokens has no batch to be drawn at: its cells are left out.
  std::vector<const experiments::ReachCell*> best;
  for (size_t i : t.best)
    if (complete(t.cells[i])) best.push_back(&t.cells[i]);
  const std::string best_name =
      o.cols.empty() && !f.series.empty() ? f.series.front().name : kBestCellsSeries;
  if (!o.cols.empty() && !best.empty()) f.series.push_back(points(best_name, best));
  if (fit && !best.empty()) {
    const auto [lo, hi] = std::minmax_element(
        best.begin(), best.end(),
        [](const auto* a, const auto* b) { return a->tokens_per_update < b->tokens_per_update; });
    f.series.push_back(
        fit_curve(*fit, (*lo)->tokens_per_update, (*hi)->tokens_per_update, best_name));
  }
  if (b_simple && std::isfinite(*b_simple) && *b_simple > 0 && !best.empty()) {
    double y_lo = INFINITY, y_hi = 0;
    for (const auto& s : f.series)
      for (double y : s.y) y_lo = std::min(y_lo, y), y_hi = std::max(y_hi, y);
    LineSeries line;
    line.name = "B_simple where the best got there: " + experiments::cell_number(*b_simple, "%.0f");
    line.fit_of = "B_simple";  // no data series: a colour of its own, dashed
    line.x = {*b_simple, *b_simple};
    line.y = {y_lo, y_hi};
    f.series.push_back(std::move(line));
  }
  return f;
}

}  // namespace fathom::plot
