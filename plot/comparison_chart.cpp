#include "plot/comparison_chart.h"

#include <algorithm>
#include <cmath>

namespace fathom::plot {

std::string axis_short_name(const std::string& axis) {
  std::string out;
  size_t begin = 0;
  while (begin <= axis.size()) {
    const size_t end = std::min(axis.find('+', begin), axis.size());
    const std::string key = axis.substr(begin, end - begin);
    const auto dot = key.rfind('.');
    out += (out.empty() ? "" : "/") + (dot == std::string::npos ? key : key.substr(dot + 1));
    begin = end + 1;
  }
  return out;
}

BarFigure comparison_bar_figure(const experiments::ComparisonTable& t) {
  BarFigure f;
  f.x_label = axis_short_name(t.row_key);
  f.y.label = t.metric;
  f.groups = t.row_labels;
  const bool grid = !t.col_key.empty();
  for (size_t c = 0; c < t.col_labels.size(); ++c) {
    BarSeries s;
    // One series per column, named by its axis; a single column needs no legend entry.
    s.name = grid ? axis_short_name(t.col_key) + " = " + t.col_labels[c] : "";
    for (size_t r = 0; r < t.row_labels.size(); ++r) {
      const experiments::TableCell& cell = t.cells[r][c];
      s.values.push_back(cell.value ? *cell.value : std::nan(""));
      s.errors.push_back(cell.value && cell.ci95 ? *cell.ci95 : std::nan(""));
    }
    f.series.push_back(std::move(s));
  }
  // A cell that pools other axes (a mean over learning rates, say) is not a seed interval.
  f.errors_are = t.pooled.empty() ? "95 % CI of the mean over seeds"
                                  : "95 % CI of the mean over the cell's runs";
  return f;
}

}  // namespace fathom::plot
