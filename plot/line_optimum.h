#pragma once
// The parabola of a budgets figure's line's optimum (experiments/axis_optimum.h), drawn.
#include <optional>

#include "experiments/axis_optimum.h"
#include "plot/figure.h"

namespace fathom::plot {

// The parabola in ln(x) through the best (lowest, or highest) point of `s` and its two neighbours,
// between them, as a fit series of `s` named by the optimum ("best 7.3 (95 % CI 5.1-9.8)"; "?" when
// inconclusive); none where the optimum is not bracketed. A NaN y is left out, as the optimum
// left it out.
std::optional<LineSeries> optimum_parabola(const experiments::AxisOptimum& o, const LineSeries& s);

}  // namespace fathom::plot
