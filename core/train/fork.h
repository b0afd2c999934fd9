#pragma once
// A fork (issue 38 item 5): a new run that continues an existing run from one of its kept
// checkpoints with changed settings -- the learning rate, the z-loss, clipping -- to test
// what would have saved a run from a spike. `fathom train --fork RUN --from STEP --set ...`.
// The fork gets a copy of the parent's checkpoint at STEP (model, optimizer state and the
// position in the data) as its resume point, the parent's metric rows and probe points up to
// STEP (so its curves continue the parent's), the parent's tags, and the tags forked_from and
// forked_at; then the trainer resumes it like any resumed run. With nothing changed, a fork
// trains exactly as its parent did after STEP.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "base/config/config.h"
#include "base/config/fork_keys.h"
#include "db/store.h"

namespace fathom {

// A checkpoint of a run one can fork from: a kept one (train.keep_checkpoint_every) or a
// resume point, with the optimizer state.
struct ForkPoint {
  int64_t step = 0;
  std::string kind;  // checkpoint_<step> | checkpoint_last | checkpoint_previous
  std::string path;
};

// The run's checkpoints that hold the optimizer state, by step; `run_dir` its artifacts dir.
std::vector<ForkPoint> fork_points(const db::Store& store, int64_t run, const std::string& run_dir);

// The checkpoint a fork of `parent` at `step` starts from; refuses, before anything is written,
// a step without a checkpoint with optimizer state to fork from (InputError on --from naming
// the nearest ones, or a model-only checkpoint there as such) and a step not before
// `max_updates`. `parent_dir`: the parent's artifacts directory.
ForkPoint check_fork_point(const db::Store& store, const db::RunRecord& parent, int64_t step,
                           int64_t max_updates, const std::string& parent_dir);

// What every fork of a run at one update inherits from the store, read once: a fork sweep
// makes many forks from one point, and a long run's metric rows are millions.
struct ForkSource {
  db::RunRecord parent;
  ForkPoint at;
  std::string parent_dir;                   // the parent's artifacts directory
  std::vector<db::Artifact> artifacts;      // the parent's, all of them
  std::map<std::string, std::string> tags;  // those that describe it up to at.step
  std::vector<db::MetricRow> rows;          // its metric rows up to at.step
  std::vector<db::ProbeRow> probes;         // its probe points up to at.step
};

// Reads what a fork of `parent` at `step` inherits; check_fork_point()'s refusals first.
ForkSource read_fork_source(const db::Store& store, const db::RunRecord& parent, int64_t step,
                            int64_t max_updates, const std::string& parent_dir);

// Creates a fork of `source.parent` at `source.at` with `config` (the parent's, overrides
// applied) and returns its id; `fork_dir(id)` is the new run's artifacts directory; `sweep` the
// sweep it is queued in ("" for none: `fathom train --fork` trains it at once). A step not
// before config's train.max_updates is refused (InputError on --from); a fork that cannot be
// completed (a file that cannot be linked or copied, a store error) is removed with its files
// and throws std::runtime_error.
int64_t create_fork(db::Store& store, const ForkSource& source, const RunConfig& config,
                    const std::function<std::string(int64_t)>& fork_dir, const std::string& git_rev,
                    const std::string& sweep = "");

// One fork: read_fork_source() and create_fork() of it.
int64_t create_fork(db::Store& store, const db::RunRecord& parent, int64_t step,
                    const RunConfig& config, const std::string& parent_dir,
                    const std::function<std::string(int64_t)>& fork_dir, const std::string& git_rev,
                    const std::string& sweep = "");

}  // namespace fathom
