#pragma once
// How a sweep's workers are started, followed and stopped. A worker is `fathom worker`
// (cli/cmd_worker.cpp): it trains one queued run of the sweep, taken with
// Store::claim_next_run, and records everything in the store. Launchers differ only in where
// that process runs:
//
//   local   fork/exec on this machine, N at a time (experiments/local_launcher.cpp)
//   slurm   one Slurm job array submitted with sbatch (experiments/slurm_launcher.cpp)
//
// A new launcher is one file -- its Launcher and its LauncherEntry
// (experiments/launcher_registry.h: sweep-file section, behaviour, tags) -- plus one
// registration in experiments/launchers.cpp. Liveness is judged from the store (heartbeat_at, which
// every worker refreshes; experiments/run_control.h), so it works across machines; a launcher adds
// what it alone knows (a local process's exit status, a Slurm job's state).
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/config/config.h"
#include "db/heartbeat.h"
#include "db/store.h"
#include "experiments/worker_tags.h"

namespace fathom::experiments {

struct LaunchRequest {
  std::string sweep;
  std::string sweep_file;     // for errors about the launcher's settings
  int runs = 0;               // queued runs to work through
  int parallel = 1;           // at most this many workers at once
  std::string fathom_binary;  // the `fathom` executable the workers run
  // Handed to every worker as $FATHOM_DB / $FATHOM_ARTIFACTS, never argv (a URL may hold a
  // password and argv is public).
  std::string db_location;
  std::string artifacts_root;
  int threads_per_worker = 1;                   // local: cores / parallel
  std::vector<std::string> devices;             // local: slot i's workers get devices[i % size]
  std::function<std::string(int64_t)> run_dir;  // where a run's files (worker.log) go
  // The workers' heartbeat interval (`fathom worker --heartbeat`).
  double heartbeat_s = db::HeartbeatThread::kDefaultInterval;
};

// A worker that ended, as its launcher saw it. The scheduler marks its run crashed with
// `reason` when the run is still "running" under the worker's lease (db/lease.h): the worker
// died before it could record an end. A run requeued or claimed again since is left alone.
struct WorkerEnd {
  int64_t run = 0;
  std::string reason;
  int64_t lease = 0;  // the generation the worker held; 0: the run's current one
};

// A worker that is the scheduler's own child process: living (it exists, even between fork
// and exec, when /proc still shows the parent's command line), or dying -- its leader thread a
// zombie, gone to a liveness check, while its other threads are still exiting; it can be
// reaped, and its exact end (the signal) learnt, only once they have.
enum class ChildWorker { kNone, kLiving, kDying };

class Launcher {
 public:
  virtual ~Launcher() = default;
  virtual std::string name() const = 0;
  // Refuses what cannot work -- no sbatch on PATH, an unknown partition, runs that need a GPU
  // on a partition without one -- before any run is queued (InputError).
  virtual void check(const LaunchRequest& request, const std::vector<RunConfig>& configs) = 0;
  // Starts the workers (local: as slots free up in poll(); slurm: submits the job array).
  // Also called with request.runs == 0 when only workers elsewhere are left to follow: a run
  // put back in the queue meanwhile may then still start here. Returns a line for the user.
  // Throws InputError when the submission is refused.
  virtual std::string launch(db::Store& store, const LaunchRequest& request) = 0;
  // One round: start what may start; the workers that ended since the last round.
  virtual std::vector<WorkerEnd> poll(db::Store& store) = 0;
  // Whether a worker of this launch still runs or may still start.
  virtual bool active() const = 0;
  // Whether run `run` under lease generation `lease` was this launch's (its worker's claim),
  // for the sweep's summary: with two schedulers of one sweep at once each counts its own runs
  // (issue 57 item 10: both said "4 finished"). A launcher whose workers claim their runs
  // themselves (Slurm's tasks) cannot tell: true.
  virtual bool ran(int64_t run, int64_t lease) const {
    (void)run, (void)lease;
    return true;
  }
  // What this process knows of run `run`'s worker under lease generation `lease` as its own
  // child, not yet reaped (local only): waitpid, not /proc, is then what says it ended.
  virtual ChildWorker child_worker(int64_t run, int64_t lease) const {
    (void)run, (void)lease;
    return ChildWorker::kNone;
  }
};

// The launcher registry (experiments/launchers.cpp): the registered names.
std::vector<std::string> launcher_names();

// Stops the worker of a running run (local: SIGTERM when it runs on this host; slurm: scancel
// of its job). Returns a message when it could not, nullopt when done or nothing to stop.
std::optional<std::string> stop_worker(const db::RunRecord& run, const WorkerTags& tags);
// Whether the worker of a running run is known to be gone (a local pid that no longer exists
// on this host, a Slurm job that left the queue), with the reason; nullopt when it lives or
// nothing is known (then only its heartbeat can tell).
std::optional<std::string> worker_gone(const db::RunRecord& run, const WorkerTags& tags);
// Puts down the worker of a run judged lost (silent past the heartbeat timeout) while it still
// exists: it must hold no GPU memory and no store lock once another worker takes the run over
// (local: SIGKILL of the very process recorded, pid and start time, when it runs on this host,
// waiting until it is gone; slurm: scancel of its job). What it did, for the run's record ("its
// process (pid 812 on node3) was killed"); nullopt when nothing was there to put down or it
// cannot reach the worker -- fencing (db/lease.h) then stops it at its first write.
std::optional<std::string> put_down_worker(const db::RunRecord& run, const WorkerTags& tags);
// Where a run's worker runs, as the user names it: its Slurm job ("17_3"), else "pid N" of a
// local worker; "" when none was recorded.
std::string worker_job(const WorkerTags& tags);
// What the launchers know now of a sweep's workers (one query each, e.g. squeue), by
// worker_job(): "RUNNING node3", "PENDING ..." (Slurm). Jobs they know nothing of are absent.
std::map<std::string, std::string> worker_states(const std::vector<WorkerTags>& sweep_tags);
// A status view's line for one run's worker, from worker_states(): its job's state, else what
// its launcher says of a queued run; "" when nothing is known.
std::string worker_state(const db::RunRecord& run, const WorkerTags& tags,
                         const std::map<std::string, std::string>& states);

// The launcher a process that holds its own run (`fathom train`) records itself under: the
// default one, whose stop and liveness checks work for any process on this host.
std::string default_launcher();

// ---- inside a worker process ----
// The launcher that started this process (the registry asks each; local when none claims it).
std::string this_worker_launcher();
// The tags this worker records about itself (worker.launcher and its launcher's own).
WorkerTags this_worker_tags();
// The cores this worker's launcher gave it, 0 when it says nothing (LauncherEntry).
int this_worker_cores();
// After this worker put its run back in the queue on `signal`: its launcher's follow-up (see
// LauncherEntry::after_requeue); a line for the log, or "".
std::string after_worker_requeue(int signal);

}  // namespace fathom::experiments
