#pragma once
// The run store could not be reached for longer than its retry budget (a PostgreSQL server
// down or partitioned away, a SQLite file locked by another process;
// $FATHOM_DB_RETRY_SECONDS, default 120 s). Not the run's fault: a worker that meets it leaves
// its run crashed -- resumable -- never failed.
#include <stdexcept>

namespace fathom::db {

class StoreUnreachable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The retry budget: $FATHOM_DB_RETRY_SECONDS (a number >= 0), else 120 s. Both backends wait
// this long for their store before giving up with StoreUnreachable.
double store_retry_seconds();

// Raises the default retry budget of this process and its children to at least `seconds`
// (sets $FATHOM_DB_RETRY_SECONDS); a budget the user set is theirs and kept.
void default_store_wait_at_least(double seconds);

}  // namespace fathom::db
