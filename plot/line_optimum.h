#pragma once
// A budgets figure's line's best x and its parabola (plot/budgets_figure.h: LineOptimum).
#include <optional>
#include <string>
#include <vector>

#include "plot/budgets_figure.h"

namespace fathom::plot {

// `values[i]`: the seeds' values behind s.y[i] (a table cell's); a NaN y is left out.
LineOptimum line_optimum(const LineSeries& s, const std::vector<std::vector<double>>& values,
                         const std::string& axis);
// The parabola in ln(x) through the lowest point and its two neighbours, between them, as a fit
// series of `s` named by the optimum ("best 7.3 (95 % CI 5.1-9.8)"; "?" when inconclusive); none
// where the optimum is not bracketed.
std::optional<LineSeries> optimum_parabola(const LineOptimum& o, const LineSeries& s);

}  // namespace fathom::plot
