#pragma once
// Training curves from the run store: the figure `fathom export plot curves` draws, and the GUI
// can draw the same.
#include <cstdint>
#include <string>
#include <vector>

#include "db/store.h"
#include "plot/figure.h"

namespace fathom::plot {

struct CurveQuery {
  std::vector<int64_t> runs;         // these runs, in this order...
  std::string sweep;                 // ...or every run of this sweep (oldest first)
  std::vector<std::string> metrics;  // e.g. valid_loss, train_loss
  double smoothing = 0;              // debiased EMA weight
  bool log_y = false;
  // Runs with the same value share a style: a sweep axis (tag "axis.KEY", e.g. model.init),
  // any tag, or a dotted config path. Empty: every run its own style.
  std::string colour_by;
};

// One curve per (run, metric) that has points; diverged runs get their divergence marker.
// Unknown runs, an empty sweep or no points at all throw fathom::InputError.
CurveFigure curves_from_store(const db::Store& store, const CurveQuery& query);

// The value of `key` for one run as colour_by resolves it; "" when the run has none.
std::string run_attribute(const db::Store& store, const db::RunRecord& run, const std::string& key);

}  // namespace fathom::plot
