#pragma once
// `fathom runs`' read of a store: the runs of a sweep with a shown status, as a RunSelection
// keeps and orders them (experiments/run_selection.h). A filter naming config values
// (norm=pre) is first tried on the runs the store picks by their config text
// (RunQuery::config_words, db::Store::list_runs): at 100,000 runs most are never read. The
// answers are those of the whole listing. Torch-free.
#include <cstddef>
#include <string>
#include <vector>

#include "db/store.h"
#include "experiments/run_selection.h"

namespace fathom::experiments {

struct StoredRuns {
  std::string sweep;   // "": every sweep's
  std::string status;  // "": any; else as shown_status shows it (a stale heartbeat: crashed)
};

struct StoredSelection {
  std::vector<QueriedRun> runs;
  size_t listed = 0;  // the runs of the sweep and status read before --where; 0 where unread
};

// Throws as select_runs does, with the counts of the whole listing.
StoredSelection select_stored_runs(const db::Store& store, const StoredRuns& asked,
                                   const RunSelection& selection, double now,
                                   const std::string& command);

}  // namespace fathom::experiments
