#pragma once
// Pruning ended runs' kept checkpoints (train.keep_checkpoint_every) down to the newest N of
// each -- what train.keep_checkpoints does while a run trains, for runs that kept them all.
// The one implementation of `fathom prune` and the desktop app's "Prune checkpoints": the best,
// last and averaged checkpoints, hypotheses and every row but the removed files' stay.
#include <cstdint>
#include <string>
#include <vector>

#include "db/artifact_files.h"
#include "db/run_paths.h"
#include "db/store.h"

namespace fathom::experiments {

// What pruning one run does: its kept checkpoints split into those that go and those that stay.
struct PrunePlan {
  db::RunRecord run;
  std::string skipped;  // why the run is left as it is ("" when it may be pruned)
  std::vector<db::KeptCheckpoint> removed, kept;
  std::uintmax_t bytes = 0;  // of the removed files that exist
};

// Reads the run's rows and its files' sizes; changes nothing. A run that may still train
// (queued, running) is skipped, and so is one that may be resumed (crashed, cancelled, failed)
// into a final evaluation averaging more than `keep` (eval.average_checkpoints). `keep` < 0:
// every kept checkpoint stays (`fathom prune --model-only` alone).
PrunePlan plan_prune(const db::Store& store, const db::StorePaths& paths, const db::RunRecord& run,
                     int keep);

// Removes the plan's rows (one transaction; a run that started meanwhile is refused with an
// InputError and nothing goes), then its files. Returns the files that could not be removed, in
// words ("" when none): a failure leaves stray files, never a row naming a missing file.
std::string apply_prune(db::Store& store, const PrunePlan& plan);

}  // namespace fathom::experiments
