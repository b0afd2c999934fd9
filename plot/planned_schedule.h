#pragma once
// A run's learning rate as its config plans it, update 1 to train.max_updates
// (base/config/lr_schedule.h): drawn beside the logged `lr` points, it shows where a running
// run stands on its schedule -- how far the warmup, where a wsd cooldown begins -- before the
// points get there.
#include <cstdint>
#include <optional>

#include "db/records.h"
#include "plot/figure.h"

namespace fathom::plot {

// The planned curve, labelled "planned (SCHEDULE)", at most ~`points` points (every update of
// a short run; the warmup's end and the decay's start always among them); nullopt when the run
// has no stored config that reads. `after`: a fork's update (db/fork_tags.h) -- its config
// plans only the updates after it (those before were its parent's), so the curve starts at
// after + 1 and its label says "(SCHEDULE, after update N)"; nullopt too when none is left.
std::optional<Curve> planned_lr_curve(const db::RunRecord& run, int points = 600,
                                      int64_t after = 0);

}  // namespace fathom::plot
