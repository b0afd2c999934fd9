#pragma once
// The learning-rate transfer figure (experiments/lr_transfer.h): each method's best rate against
// depth on log-log axes, its 95 % interval shaded, its slope in the legend entry -- a
// method whose rate transfers draws a level line. Qt-free: a CurveFigure the CLI draws.
#include "experiments/lr_transfer.h"
#include "plot/figure.h"

namespace fathom::plot {

CurveFigure lr_transfer_figure(const experiments::LrTransfer& t);

}  // namespace fathom::plot
