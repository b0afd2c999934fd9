#pragma once
// Brushing on parallel coordinates (issue 58 item 8), apart from the mouse: which lines lie
// within the ranges dragged along the axes (every brushed axis must hold the line: AND), and
// the ranges in words. Ranges are in axis positions, 0 (bottom) to 1 (top), as
// plot::axis_position places the values.
#include <map>
#include <string>
#include <vector>

#include <QString>

#include "plot/parallel_coordinates.h"

namespace fathom::gui {

struct AxisRange {
  double low = 0, high = 1;  // positions, low <= high
};

// Ranges by axis name: a redraw with the same axes keeps them.
using AxisRanges = std::map<std::string, AxisRange>;

// Whether line `line` of `f` lies within every range (a line with no value on a brushed axis
// does not); true where there are no ranges. A range on an axis `f` lacks is ignored.
bool line_in_ranges(const plot::ParallelFigure& f, size_t line, const AxisRanges& ranges);

// The ranges in words, axis by axis in the figure's order, joined by " and ": a category axis
// lists the values within ("model.norm pre, post"), a numeric one the lowest and highest run
// value within ("train.lr 0.001-0.004"); "none" for a range holding no run's value.
QString describe_ranges(const plot::ParallelFigure& f, const AxisRanges& ranges);

}  // namespace fathom::gui
