#pragma once
// Follows a launched sweep to its end (experiments/launcher.h): polls the launcher -- which
// starts local workers as slots free up, or watches a Slurm job array -- and the store, where
// every worker marks its run running, heartbeats, and records its end (finished, diverged,
// failed, cancelled; or queued again after a preemption). A worker that ended without
// recording an end (a signal, an out-of-memory kill, a lost node) leaves its run crashed,
// with the reason; so does one whose heartbeat went silent (experiments/run_control.h).
#include <string>

#include "db/store.h"
#include "experiments/launcher.h"
#include "experiments/run_control.h"

namespace fathom::experiments {

struct FollowOptions {
  std::string sweep;
  bool progress = true;  // status lines on the terminal (experiments/sweep_progress.h)
  double heartbeat_timeout_s = kDefaultHeartbeatTimeout;
};

// Runs of the sweep that reached each end while following.
struct SweepCounts {
  int finished = 0, diverged = 0, failed = 0, crashed = 0, cancelled = 0, other = 0;
  int left_queued = 0;  // still queued when no worker was left to claim them
  // Runs of the sweep that ended meanwhile under another launch's workers (a second scheduler
  // of the sweep): not counted above (Launcher::ran).
  int elsewhere = 0;
};

// Returns when no worker of the launch runs or may start and no run of the sweep is running.
SweepCounts follow_sweep(db::Store& store, Launcher& launcher, const FollowOptions& options);

}  // namespace fathom::experiments
