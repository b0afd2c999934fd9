#pragma once
// A comparison table over a numeric axis (depth, width, learning rate) drawn as lines rather
// than bars: one line per row, each point a cell's mean with its 95 % t-interval as an error
// bar, and each line's best value along the axis (experiments/axis_optimum.h) with its parabola
// dashed where bracketed. The budgets figure (plot/budgets_figure.h) is this at each budget;
// the Compare tab draws its table this way when its columns are three or more numbers.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "experiments/axis_optimum.h"
#include "experiments/comparison_table.h"
#include "plot/figure.h"

namespace fathom::plot {

struct AxisLines {
  LineFigure figure;  // with each bracketed optimum's parabola after its line
  std::vector<experiments::AxisOptimum> optima;  // one per line, in the figure's order
};

// Appends a line per row of `t` to `figure`, and its optimum to `optima`, whose columns are numbers
// (experiments::numeric_columns: a zip group's "6 / 6" by its first value), drawn in ascending
// order of them; `name(r)` names row r's line. Nothing is appended where the columns are not all
// numbers > 0.
void add_axis_lines(const experiments::ComparisonTable& t, const std::string& axis,
                    bool higher_is_better, const std::function<std::string(size_t)>& name,
                    LineFigure& figure, std::vector<experiments::AxisOptimum>& optima);

// Ticks at whole numbers where every point's x is one (a depth), and a log x axis where the
// values span two decades or more (a learning-rate grid).
void fit_x_axis(LineFigure& figure);

// The whole figure of a table (experiments::along_numeric_axis: a table of one column is read
// along its rows), its lines named by their rows ("norm = post"): none where the axis has fewer
// than `min_points` numbers.
std::optional<AxisLines> axis_lines(const experiments::ComparisonTable& t, size_t min_points = 3);

}  // namespace fathom::plot
