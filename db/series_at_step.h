#pragma once
// A cumulative curve's value at any update: target_tokens and train_flops are logged at a run's
// log and validation points, and a curve of another metric (per-layer gradient norms, a
// validation off the log grid) needs its x between two of them. What the x axes "tokens" and
// "compute" draw (plot/curve_x.h) and a table's budget cuts at (experiments/value_at_budget.h).
#include <cstdint>
#include <vector>

#include "db/records.h"

namespace fathom::db {

// `series` (by step, non-empty) at `step`: its value where logged; between two points linear in
// the step (both grow about linearly with updates); before the first point in proportion from
// 0 at update 0; past the last, in proportion to the last point's rate.
double series_at_step(const std::vector<MetricPoint>& series, int64_t step);

}  // namespace fathom::db
