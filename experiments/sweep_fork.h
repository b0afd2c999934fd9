#pragma once
// A fork sweep's rule for each run (docs/sweeps.md, "Fork sweeps"): it may change only what a
// fork may (base/config/fork_keys.h) of its parent's config. Shared by `fathom sweep`
// (cli/fork_sweep.h) and the desktop app's sweep check, which both read the parent's config.
#include "base/config/config.h"
#include "experiments/sweep_spec.h"

namespace fathom::experiments {

// An InputError on the first key of `run` that changes what a fork may not change of `parent`,
// where the sweep file sets it (an axis value, a set: line) or else at `fork:`. `spec.fork`
// must be set.
void check_fork_run(const SweepSpec& spec, const RunConfig& parent, const RunConfig& run);

}  // namespace fathom::experiments
