#pragma once
// Where a sweep's learning-rate grid leaves an optimum open: a curve (one setting of the other
// axes, experiments/lr_sensitivity.h) whose lowest mean loss is at the grid's lowest or highest
// rate has its optimum at that end or beyond it, so a choice among its rates -- and every table
// that compares methods at their best rate -- may be the grid's, not the method's. The cure is
// the next rate beyond that end, one grid step further (a rate past the optimum is worse, which
// then brackets it); `fathom sweep extend` writes those runs as a sweep file
// (experiments/sweep_extension.h). The depth studies did this three times by hand
// (configs/presets/*-edge.yaml).
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "experiments/lr_sensitivity.h"

namespace fathom::experiments {

struct OpenEdge {
  std::string label;                           // the curve's label
  std::map<std::string, std::string> setting;  // its axes' values (LrCurve::setting)
  double best_lr = 0;                          // the end rate with the lowest mean
  bool above = false;                          // the highest rate (else the lowest)
  std::string next_text;                       // one grid step beyond it, as the file writes it
  double next_lr() const { return std::strtod(next_text.c_str(), nullptr); }
};

struct GridEdges {
  std::vector<OpenEdge> open;       // the curves to extend, in the curves' order
  std::vector<std::string> closed;  // the curves whose optimum lies inside their rates
  std::vector<std::string> notes;   // curves that cannot be judged, and why
};

// One step beyond the highest (`above`) or lowest of `rates` (ascending, positive, at least
// two): the rates' mean step in log rate, (high / low)^(1 / (n - 1)) -- a log-spaced grid's own
// ratio, exact even where its points were rounded to a few digits.
double rate_beyond(const std::vector<double>& rates, bool above);

// Six significant digits, as the presets write rates (0.0253984); parsed back, the same rate
// to 1e-6 -- the grid step of the sweep it extends, not a new spacing.
std::string rate_text(double rate);

// The curves of `s` judged: a curve with fewer than two rates cannot say where its optimum is
// (a note). A tie at the lowest mean is the lower rate's (LrCurve::best_lr).
GridEdges grid_edges(const LrSensitivity& s);

}  // namespace fathom::experiments
