#pragma once
// Figure sizes for a two-column paper, in inches (the unit of LaTeX page geometry).
#include <string>

namespace fathom::plot {

struct FigureSize {
  double width_in = 3.3, height_in = 2.4;
};

constexpr FigureSize kColumnSize{3.3, 2.4};  // one column of a two-column paper
constexpr FigureSize kPageSize{6.9, 2.8};    // the full text width (figure*)

// "column", "page" or "WxH" in inches (e.g. "3.3x2"); bad text throws fathom::InputError
// naming `field` (e.g. "--size").
FigureSize parse_size(const std::string& text, const std::string& field = "--size");

}  // namespace fathom::plot
