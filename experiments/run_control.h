#pragma once
// Acting on runs that workers may be training, wherever they run: cancelling (the CLI's
// `fathom sweep cancel` and the desktop app's Cancel share this), and judging whether a
// running run's worker is lost -- from its heartbeat in the store, which works across
// machines, and from what its launcher knows (experiments/launcher.h).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "db/store.h"
#include "experiments/write_lock_watch.h"

namespace fathom::experiments {

// A worker refreshes its run's heartbeat every 20 s (db/heartbeat.h); one silent for this long
// is lost (a machine that died, a network partition, a worker frozen in the kernel).
constexpr double kDefaultHeartbeatTimeout = 180;

struct CancelReport {
  int cancelled = 0;
  std::vector<std::string> problems;  // workers that could not be stopped, and why
};

// Queued and running runs among `runs` become cancelled (`reason` in their error field); each
// running one's worker is stopped through the launcher that started it (SIGTERM to a local
// process on this host, scancel of a Slurm job). Other statuses are left as they are.
CancelReport cancel_runs(db::Store& store, const std::vector<db::RunRecord>& runs,
                         const std::string& reason);
// The whole sweep: cancel_runs over its runs, and workers not started yet (a Slurm array's
// pending tasks) are cancelled too, so nothing is left behind in the cluster's queue.
CancelReport cancel_sweep(db::Store& store, const std::string& sweep, const std::string& reason);

// The status to show for a run: "crashed" for a running run whose heartbeat is older than
// `timeout_s` (its worker is lost; whoever follows or resumes its sweep records that), else its
// stored status. For read-only views: the CLI's runs and show, the desktop app's table.
std::string shown_status(const db::RunRecord& run, double now,
                         double timeout_s = kDefaultHeartbeatTimeout);

// Seconds after its claim by which a worker has recorded itself: a local launcher records
// the pid right after starting it, a worker that claims for itself right after the claim.
constexpr double kUnstartedGrace = 20.0;

// Whether no worker ever recorded itself for the run (no worker.pid, no Slurm job): whoever
// claimed it stopped before starting it, so running it again repeats nothing.
bool never_started(const std::map<std::string, std::string>& tags);
// The same for the run's current claim: tags an earlier holder wrote (worker.lease below the
// run's lease, experiments/worker_tags.h) say nothing of it either.
bool never_started(const db::RunRecord& run, const std::map<std::string, std::string>& tags);

// Why a running run's worker is lost, or nullopt while it lives: its launcher knows it is
// gone; it is a sweep's run claimed on this host more than kUnstartedGrace seconds ago and no
// worker recorded itself (a scheduler killed between its claim and its launch); or its heartbeat is
// older than `timeout_s` (at unix time `now`), its silence counted from `blocked_until` when
// that is later (every writer was kept waiting until then, experiments/write_lock_watch.h).
// `run` may be an older listing: the verdict is checked against the run's status now.
// `worker_exists`: the caller knows the worker's process exists (its own child, not reaped:
// Launcher::child_worker), so its launcher's guess from /proc is not asked.
std::optional<std::string> lost_worker(const db::Store& store, const db::RunRecord& run, double now,
                                       double timeout_s, double blocked_until = 0,
                                       bool worker_exists = false);

// lost_worker with the store's write lock in view (`watch`, looked at this round): a worker
// holding the lock is judged by its own heartbeat, any other's silence counts from
// watch.blocked_until(). The verdict says when the lost worker held the lock.
std::optional<std::string> judge_lost_worker(const db::Store& store, const db::RunRecord& run,
                                             double now, double timeout_s, WriteLockWatch& watch,
                                             bool worker_exists = false);
// Puts down the worker judged lost for `reason` when it still exists (put_down_worker,
// experiments/launcher.h) -- before the caller records anything, which the lock it may hold
// would keep waiting -- and returns the reason saying so. A holder no launcher started (a
// Python loop) or that tags of an earlier holder name is left to fencing.
std::string put_down_lost_worker(const db::Store& store, const db::RunRecord& run,
                                 const std::string& reason);
// The indexes of `runs` in order, the run whose worker holds the store's write lock
// (watch.holder()) moved first: whatever is recorded of any other run waits on that lock until
// the holder is put down.
std::vector<size_t> lock_holder_first(const db::Store& store,
                                      const std::vector<db::RunRecord>& runs,
                                      const WriteLockWatch& watch);

// A run outside `runs` (another sweep's, a `fathom train`'s) whose worker on this host has
// stalled the store's write lock (watch.stalled()) and is lost by its own heartbeat -- silent
// past `timeout_s` and never fewer than db::kMinBeatsPerTimeout of the intervals it recorded:
// every writer of `runs` waits on it, so it is put down and its run marked crashed, as its own
// follower would. What was done ("run 7 (not in a sweep): no heartbeat ..."), else nullopt.
std::optional<std::string> settle_lost_holder_elsewhere(db::Store& store,
                                                        const std::vector<db::RunRecord>& runs,
                                                        double now, double timeout_s,
                                                        WriteLockWatch& watch);

// Acting for a lost worker, under the lease it held (db/lease.h): its run becomes crashed, or
// (requeue_lost) queued again, only while that worker is still its holder -- a run that
// ended, was requeued or was claimed by another worker since is left as it is (false).
// The running run whose current holder is process `pid` on this host, from every run's
// worker.pid (one read), or nullopt.
std::optional<db::RunRecord> run_held_by(const db::Store& store, long long pid);

// Who holds a SQLite store's write lock, for the user a stall leaves waiting: a running run's
// worker ("pid 812 (fathom, stopped), the worker of run 7 of sweep s, last heartbeat 12 s ago:
// a scheduler ... puts it down once ..."), or another process
// ("pid 900 (sqlite3), not a running run's worker: nothing of Fathom puts it down -- ..."). No
// process's arguments are shown: they may hold a password (base/util/process.h).
std::string describe_lock_holder(const db::Store& store, long long pid, double now);

bool mark_lost(db::Store& store, const db::Lease& lease, const std::string& reason);
bool requeue_lost(db::Store& store, const db::Lease& lease, const std::string& reason);

}  // namespace fathom::experiments
