#pragma once
// A comparison table (experiments/comparison_table.h) as grouped bars: one group per row, one
// bar per column, the cell's value with its 95 % t-interval of the mean as a whisker. A cell
// with no value (nothing finished, every run diverged) has no bar; the table says why.
#include <string>

#include "experiments/comparison_table.h"
#include "plot/figure.h"

namespace fathom::plot {

BarFigure comparison_bar_figure(const experiments::ComparisonTable& table);

// A header's name of an axis: the last part of each key, "model.norm+model.init" -> "norm/init".
std::string axis_short_name(const std::string& axis);

}  // namespace fathom::plot
