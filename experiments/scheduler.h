#pragma once
// Runs the runs of a sweep as separate worker processes (`fathom train --resume ID`), N at a
// time, so a crash, abort or out-of-memory kill in one run never takes down the sweep or the
// store. A worker that dies without recording an end (a signal, a non-zero exit before the
// trainer could write) leaves its run "crashed", with the reason. The store records the rest:
// each worker marks its run running, heartbeats, and finishes it (finished, diverged, failed).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "db/store.h"

namespace fathom {

struct SchedulerOptions {
  std::string fathom_binary;       // the `fathom` executable the workers run
  // The store the workers write to and their artifacts root, handed to each worker as
  // $FATHOM_DB and $FATHOM_ARTIFACTS (never argv: a store URL may hold a password).
  std::string db_location;
  std::string artifacts_root;
  int jobs = 1;                    // parallel worker processes
  int threads_per_worker = 1;      // train.threads of each worker (cores / jobs)
  bool progress = true;            // status lines on the terminal (experiments/sweep_progress.h)
  std::string sweep_name;          // for the status lines
  // Slot i's workers get `--device devices[i % size]` (GPU machines: one slot per GPU), except
  // runs whose config says device: cpu. Empty: the configs decide.
  std::vector<std::string> devices;
};

struct SweepCounts {
  int finished = 0, diverged = 0, failed = 0, crashed = 0, cancelled = 0, other = 0;
};

// Starts a worker for each run in `runs` (in order) whose status is still queued or crashed
// when its turn comes, keeps `jobs` of them going, and returns when all have ended. Worker
// output goes to `artifacts_dir(run)/worker.log`.
SweepCounts run_workers(db::Store& store, const std::vector<int64_t>& runs,
                        const SchedulerOptions& options,
                        const std::function<std::string(int64_t)>& artifacts_dir);

}  // namespace fathom
