#include "plot/axis_lines.h"

#include <algorithm>
#include <cmath>

#include "db/metric_presentation.h"
#include "plot/comparison_chart.h"
#include "plot/line_optimum.h"

namespace fathom::plot {

void add_axis_lines(const experiments::ComparisonTable& t, const std::string& axis,
                    bool higher_is_better, const std::function<std::string(size_t)>& name,
                    LineFigure& figure, std::vector<experiments::AxisOptimum>& optima) {
  const std::vector<double> labels = experiments::numeric_columns(t);
  if (labels.empty()) return;
  const std::vector<size_t> order = experiments::columns_by_value(labels);
  for (size_t r = 0; r < t.row_labels.size(); ++r) {
    LineSeries s;
    s.name = name(r);
    std::vector<std::vector<double>> values;
    for (size_t c : order) {
      const experiments::TableCell& cell = t.cells[r][c];
      s.x.push_back(labels[c]);
      s.y.push_back(cell.value ? *cell.value : std::nan(""));
      s.err.push_back(cell.ci95 ? *cell.ci95 : std::nan(""));
      values.push_back(cell.value ? cell.values : std::vector<double>{});
    }
    optima.push_back(experiments::axis_optimum(s.name, axis, s.x, values, higher_is_better));
    const std::optional<LineSeries> fit = optimum_parabola(optima.back(), s);
    figure.series.push_back(std::move(s));
    if (fit) figure.series.push_back(*fit);
  }
}

void fit_x_axis(LineFigure& figure) {
  bool whole = true, any = false;
  double lo = INFINITY, hi = 0;
  for (const auto& s : figure.series) {
    if (!s.fit_of.empty()) continue;  // a parabola's samples lie between the points
    for (double x : s.x) {
      whole &= x == std::floor(x);
      any = true;
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
  }
  // Depths are counts: no tick at 2.5 layers.
  figure.x.whole_numbers = any && whole;
  // 1e-4 ... 1e-1 on a linear axis puts every rate but the largest at its left edge.
  constexpr double kTwoDecades = 100;
  if (any && lo > 0 && hi / lo >= kTwoDecades && !whole) figure.x.scale = Scale::Log;
}

std::optional<AxisLines> axis_lines(const experiments::ComparisonTable& table, size_t min_points) {
  const experiments::ComparisonTable t = experiments::along_numeric_axis(table);
  if (experiments::numeric_columns(t).size() < std::max<size_t>(min_points, 1)) return std::nullopt;
  AxisLines out;
  const std::string axis = experiments::short_axis_key(t.col_key);
  out.figure.x.label = axis;
  out.figure.y.label = t.metric;
  add_axis_lines(
      t, axis, db::metric::higher_is_better(t.metric).value_or(false),
      [&](size_t r) {
        // As the bars' legend names a column: "norm = post"; one line, the metric.
        return t.row_key.empty() ? t.row_labels[r]
                                 : axis_short_name(t.row_key) + " = " + t.row_labels[r];
      },
      out.figure, out.optima);
  fit_x_axis(out.figure);
  return out;
}

}  // namespace fathom::plot
