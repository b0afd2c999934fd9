#pragma once
// Pruning ended runs' checkpoints: the kept checkpoints (train.keep_checkpoint_every) beyond the
// newest N of each -- what train.keep_checkpoints does while a run trains, for runs that kept
// them all -- and, asked for, the fallback resume point of runs that ended with a result.
// The one implementation of `fathom prune` and the desktop app's "Prune checkpoints": the best,
// last and averaged checkpoints, hypotheses and every row but the removed files' stay.
#include <cstdint>
#include <string>
#include <vector>

#include "db/artifact_files.h"
#include "db/run_paths.h"
#include "db/store.h"

namespace fathom::experiments {

// What to prune.
struct PruneChoice {
  int keep = -1;            // kept checkpoints to leave per run, the newest; < 0: all stay
  bool model_only = false;  // those that stay, rewritten without the optimizer state (that needs
                            // LibTorch: `fathom prune --model-only`, cli/prune_model_only.h)
  bool previous = false;    // the fallback resume point (checkpoint_previous) of finished and
                            // diverged runs: only a resume after checkpoint_last went bad needs it
};

// What pruning one run does: its kept checkpoints split into those that go and those that stay.
struct PrunePlan {
  db::RunRecord run;
  std::string skipped;  // why the run is left as it is ("" when it may be pruned)
  std::vector<db::KeptCheckpoint> removed, kept;
  // What removing the kept checkpoints frees: a file a fork also names (a hard link,
  // core/train/fork.h) frees nothing.
  std::uintmax_t bytes = 0;
  // The fallback resume point to remove ("" when none) and its size; `last` is the
  // checkpoint_last in front of it, which stays: a caller that can load it checks that it does
  // before applying.
  std::string previous, last;
  std::uintmax_t previous_bytes = 0;
  bool removes_previous() const { return !previous.empty(); }
  // With model_only: the kept checkpoints that stay and, as far as the run's config and their
  // names tell, still hold the optimizer state -- no file is opened to list them (that would
  // read gigabytes); a rewrite checks each file.
  std::vector<db::KeptCheckpoint> to_slim;
  std::uintmax_t to_slim_bytes = 0;
};

// Reads the run's rows and its files' sizes; changes nothing. A run that may still train
// (queued, running) is skipped, and so is one that may be resumed (crashed, cancelled, failed)
// into a final evaluation averaging more than `keep` (eval.average_checkpoints). A resumable
// run keeps its fallback resume point.
PrunePlan plan_prune(const db::Store& store, const db::StorePaths& paths, const db::RunRecord& run,
                     const PruneChoice& choice);

// Where `fathom prune --model-only` writes kept checkpoint `k` without its optimizer state: a
// name no holder of the run writes, <kind>.model.g<lease>.pt beside the old file.
std::string model_only_file_name(const db::KeptCheckpoint& k, int64_t lease);

// Removes the plan's rows (one transaction; a run that started meanwhile is refused with an
// InputError and nothing goes), then its files. Returns the files that could not be removed, in
// words ("" when none): a failure leaves stray files, never a row naming a missing file.
std::string apply_prune(db::Store& store, const PrunePlan& plan);

}  // namespace fathom::experiments
