#pragma once
// Queueing a sweep in the store (`fathom sweep`, and the desktop app's Start through it): the
// rules for which runs are created, kept, put back in the queue or left to a live worker.
// Torch-free: the launcher that starts workers is the caller's (experiments/launcher.h).
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "db/store.h"
#include "experiments/sweep_spec.h"

namespace fathom::experiments {

// More runs than this need --yes: a sweep of 100,000 runs is more likely a typo in an axis
// than a plan, and must not silently fill the store and a cluster's queue.
constexpr size_t kManyRuns = 1000;

// Runs recorded per transaction (Store::create_runs): one commit per batch, not per run and
// tag, while a batch holds the store's write lock for well under a second.
constexpr size_t kQueueBatch = 1000;

// InputError at the sweep's `name:` line when `runs` is more than kManyRuns and not `confirmed`.
void check_run_count(const SweepSpec& spec, size_t runs, bool confirmed);

// How the axes were varied, for tables and reports (tag sweep.axes): "a+b,c", a zip group
// being one group.
std::string axes_layout(const SweepSpec& spec);

struct QueuedSweep {
  std::vector<int64_t> created;  // runs recorded by this call (queued, with axis.* tags)
  int kept = 0;      // ended before (finished, diverged, failed, cancelled): left as they are
  int requeued = 0;  // crashed, or running with a lost worker: back in the queue
  int alive = 0;     // running with a live worker elsewhere: left to it
  int queued = 0;    // queued now, after all of the above
  // Of `queued`, runs this file does not list: queued by another file of the same sweep name
  // (an extension grid, e.g. NAME-edge.yaml). The launch runs them too: a sweep is one queue.
  int queued_outside_file = 0;
  // What was judged of each running run whose worker is lost ("run 3: no heartbeat for 7 s
  // (worker on node2); its process (pid 812 on node2) was killed"), for the user: the run's
  // record forgets it once a new worker takes the run.
  std::vector<std::string> lost;
};

// Records `runs` of `spec` in the store. A sweep already in the store needs `resume` (else an
// InputError naming the sweep file); then only the runs it lacks are created, and its crashed
// runs and running ones whose worker is lost (gone, or silent past `heartbeat_timeout_s`) go
// back to the queue, to continue from their last checkpoint -- as do ended runs whose status
// is in `retry` (cancelled, failed: `fathom sweep --resume --retry cancelled`).
// Runs are recorded in batches (Store::create_runs) unless `maker.make` is given. A sweep
// that cannot be queued whole (a store error, a fork that cannot be made) leaves none of the
// runs this call recorded: each is removed (`maker.remove`) before the error goes on.
struct SweepRunMaker {
  // Makes one run, with the tags queueing gives every run, and returns its id (a fork sweep's
  // runs are forks, core/train/fork.h, made by the CLI). Unset: Store::create_runs.
  std::function<int64_t(const SweepRun&, const std::map<std::string, std::string>& tags)> make;
  // Removes a run this call recorded: its rows and any files made for it. Unset:
  // Store::delete_run.
  std::function<void(int64_t)> remove;
};
QueuedSweep queue_sweep(db::Store& store, const SweepSpec& spec, const std::vector<SweepRun>& runs,
                        bool resume, double heartbeat_timeout_s,
                        const std::vector<std::string>& retry = {},
                        const SweepRunMaker& maker = {});

// The statuses --retry may name: ended runs that a resume can continue from their checkpoint.
const std::vector<std::string>& retryable_statuses();

}  // namespace fathom::experiments
