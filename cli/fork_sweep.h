#pragma once
// `fathom sweep` of a fork sweep (`fork: {run: RUN, from: STEP}`, experiments/sweep_spec.h):
// each run continues RUN from its checkpoint at STEP with the settings its axes and set: give,
// made as `fathom train --fork` makes a fork (core/train/fork.h) and queued for the sweep's
// workers, which resume it from that checkpoint as any interrupted run. A grid of rescues of a
// run that spiked -- lower rates, a z-loss, clipping -- trained side by side.
#include <string>
#include <vector>

#include "base/config/config.h"
#include "cli/commands.h"
#include "db/run_paths.h"
#include "db/store.h"
#include "experiments/sweep_queue.h"
#include "experiments/sweep_spec.h"

namespace fathom::cli {

struct ForkSweep {
  experiments::SweepFork at;
  db::RunRecord parent;
  RunConfig parent_config;  // as stored: what the runs' changes are judged against
};

// The parent named by `at` in the store (read only); an InputError at the sweep file's `fork:`
// when there is no such run.
ForkSweep read_fork_parent(const std::string& sweep_file, const experiments::SweepFork& at,
                           const GlobalOptions& global);

// Refuses, at `fork: from`, a fork point the parent has no checkpoint with optimizer state
// at, or one not before some run's train.max_updates -- before anything is queued.
void check_fork_point_of_sweep(const ForkSweep& fork, const experiments::SweepSpec& spec,
                               const std::vector<experiments::SweepRun>& runs,
                               const GlobalOptions& global);

// Makes each new run of the sweep a fork of the parent, with the sweep's tags and the settings
// it changed (tag fork.settings, "train.lr=0.001; train.z_loss=0.0001"); what every fork
// inherits is read from the store once, at the first. Sets `make` alone.
experiments::SweepRunMaker fork_maker(db::Store& store, const ForkSweep& fork,
                                      const experiments::SweepSpec& spec,
                                      const db::StorePaths& paths);

}  // namespace fathom::cli
