#pragma once
// What a run is doing, in the words of the dashboard's legend: "running 120/300 (40%),
// ETA 2:10", "queued", "finished", "diverged at 40", "failed". The ETA assumes the rate the run
// trains at now (db/update_rate.h) holds for the rest -- not its updates over the time since it
// first started, which a resumed run (queued for hours in between) or a fork (its parent's
// updates counted as its own) made wrong by hours.
#include <optional>

#include <QString>

#include "db/records.h"

namespace fathom::gui {

// max_updates is read from the run's config (train.max_updates); without it a running run shows
// its update count only. `seconds_per_update`: the run's rate now (db::recent_seconds_per_update);
// without one (before its second logged loss) there is no ETA.
QString run_state_text(const db::RunRecord& run,
                       std::optional<double> seconds_per_update = std::nullopt);

// "0:42", "2:10", "1:02:03" (h:mm:ss from an hour on).
QString duration_text(double seconds);

}  // namespace fathom::gui
