#pragma once
// The learning-rate sensitivity figure (experiments/lr_sensitivity.h): the loss against the
// learning rate on a log axis, one curve per setting of the other axes with its seeds' range
// as a band, rates where seeds diverged marked with a cross at l0, each curve's sensitivity in
// its legend entry. Qt-free: a CurveFigure the CLI, reports and the desktop app draw alike.
#include "experiments/lr_sensitivity.h"
#include "plot/figure.h"

namespace fathom::plot {

// `sensitivity_in_legend` false: the curves' names alone, where a table beside the figure
// gives the sensitivities (the desktop app's view: a legend half as wide, in fewer rows).
CurveFigure lr_sensitivity_figure(const experiments::LrSensitivity& s,
                                  bool sensitivity_in_legend = true);

}  // namespace fathom::plot
