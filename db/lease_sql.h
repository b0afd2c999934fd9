#pragma once
// The SQL of fencing (db/lease.h) that both backends share, with each dialect's placeholders
// passed in ("?2" for SQLite, "$2" for PostgreSQL). Internal to db/.
#include <cstdint>
#include <string>
#include <vector>

#include "db/lease.h"

namespace fathom::db {

// A WHERE condition: the run is running under the lease generation bound to `lease`.
std::string held_by(const std::string& lease);
// The same, or true when `lease` is bound to NULL (an unfenced write).
std::string held_by_if_fenced(const std::string& lease);
// The SET list that takes a run for a new holder (claim, `fathom train`): running, where,
// a fresh start for this attempt, and the next lease generation.
std::string take_run_set(const std::string& now, const std::string& host,
                         const std::string& device);
// The SET list that puts a run back in the queue with the next lease generation.
std::string requeue_set(const std::string& reason, const std::string& now);
// "status IN ('running', 'crashed')"; the statuses are checked by Store (no quotes in them).
std::string status_in(const std::vector<std::string>& statuses);
// "3, 7": ids for an IN list (integers, so no quoting).
std::string id_list(const std::vector<int64_t>& ids);
// " AND id NOT IN (3, 7)", or "" for none.
std::string id_not_in(const std::vector<int64_t>& ids);

// The claim as one statement (?1 the sweep, ?2 now, ?3 host, ?4 device): takes the sweep's
// oldest queued run not in `skip` and returns its id. `lock`: the dialect's
// lock_skipping_locked(). The pick seeks an index (docs/schema.md: runs_state on SQLite,
// runs_queued on PostgreSQL): O(log n).
std::string claim_next_sql(const std::vector<int64_t>& skip, const std::string& lock);

// After reading the run's status and generation inside a fenced write's transaction: throws
// LeaseLost unless it is running under `lease`.
void throw_unless_held(const Lease& lease, const std::string& status, int64_t generation);

}  // namespace fathom::db
