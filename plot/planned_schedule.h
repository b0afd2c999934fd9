#pragma once
// A run's learning rate as its config plans it, update 1 to train.max_updates
// (base/config/lr_schedule.h): drawn beside the logged `lr` points, it shows where a running
// run stands on its schedule -- how far the warmup, where a wsd cooldown begins -- before the
// points get there.
#include <optional>

#include "db/records.h"
#include "plot/figure.h"

namespace fathom::plot {

// The planned curve, labelled "planned (SCHEDULE)", at most ~`points` points (every update of
// a short run; the warmup's end and the decay's start always among them); nullopt when the run
// has no stored config that reads.
std::optional<Curve> planned_lr_curve(const db::RunRecord& run, int points = 600);

}  // namespace fathom::plot
