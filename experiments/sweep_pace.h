#pragma once
// The pace of a resumed sweep before this session has made an update: how long an update took
// in the runs that ended before it. Until a running run logs its first new point the session's
// own rate is unknown, and the terminal said "ETA ?" for minutes on a large model.
#include <cstddef>
#include <optional>
#include <vector>

#include "db/records.h"

namespace fathom::db {
class Store;
}

namespace fathom::experiments {

// The median over the sweep's ended runs (at most the `at_most` latest by id) of each one's
// last logged seconds per update (db/update_rate.h: the median of its last intervals, so a
// preemption's pause inside one is passed over). `states` is the state listing; each chosen
// run's record is read once for its log_every. nullopt where no ended run logged two losses.
std::optional<double> ended_runs_seconds_per_update(const db::Store& store,
                                                    const std::vector<db::RunRecord>& states,
                                                    std::size_t at_most = 16);

}  // namespace fathom::experiments
