#pragma once
// What a run is doing, in the words of the dashboard's legend: "running 120/300 (40%),
// ETA 2:10", "queued", "finished", "diverged at 40", "failed". The ETA assumes the rate of
// updates so far holds for the rest (updates since the start over the time since the start).
#include <QString>

#include "db/records.h"

namespace fathom::gui {

// `now`: seconds since the epoch, as the store's times. max_updates is read from the run's
// config (train.max_updates); without it a running run shows its update count only.
QString run_state_text(const db::RunRecord& run, double now);

// "0:42", "2:10", "1:02:03" (h:mm:ss from an hour on).
QString duration_text(double seconds);

}  // namespace fathom::gui
