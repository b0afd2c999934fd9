#pragma once
// The run store could not be reached for longer than its retry budget (a PostgreSQL server
// down or partitioned away; $FATHOM_DB_RETRY_SECONDS, default 120 s). Not the run's fault: a
// worker that meets it leaves its run crashed -- resumable -- never failed.
#include <stdexcept>

namespace fathom::db {

class StoreUnreachable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace fathom::db
