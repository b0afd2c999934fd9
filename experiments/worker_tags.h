#pragma once
// The tags a run's holder records about itself (docs/schema.md): which launcher started it,
// where it runs and where its output goes. `fathom train`, `fathom worker` and the local
// launcher write them; the launchers read them to stop a worker and to judge whether it is gone
// (experiments/launchers.cpp). A launcher's own tags (Slurm's slurm.*) stay in its file.
#include <map>
#include <string>

#include "db/store.h"

namespace fathom::experiments {

// What a worker wrote about itself in its run's tags (worker.launcher, worker.host,
// worker.pid, slurm.job_id, ...): which launcher started it decides how to stop it and how to
// tell whether it still lives.
using WorkerTags = std::map<std::string, std::string>;

namespace worker_tag {
inline const std::string kLauncher = "worker.launcher";  // the launcher's registered name
inline const std::string kHost = "worker.host";          // host_name() of the worker's machine
inline const std::string kPid = "worker.pid";            // its process id on that host
// When that process started (process_start_ticks): with the pid it names the one process, so
// a worker judged lost is put down and never a later process that reused its pid.
inline const std::string kStarted = "worker.started";
inline const std::string kLog = "worker.log";  // the file its output goes to
// Seconds between its heartbeats: a resume judging it lost (`fathom train --resume
// --heartbeat-timeout`) never waits for fewer than a few of them.
inline const std::string kHeartbeatInterval = "worker.heartbeat_interval";
// The lease generation the holder wrote these tags under: a run claimed again (a resume, a
// requeue) keeps its last holder's tags until the new holder records itself, and they must
// not speak for the new one (issue 57 item 10).
inline const std::string kLease = "worker.lease";
// Set by a holder that no launcher started, naming it: a training loop logging through the
// Python package (python/fathom: "python"). No launcher can tell whether such a process lives
// or train its run again, so the run's heartbeat alone judges it (experiments/run_control.h).
inline const std::string kExternal = "worker.external";
}  // namespace worker_tag

// The file a worker's output goes to, in its run's directory (appended across requeues).
std::string worker_log_path(const std::string& run_dir);

// The tags of process `pid` on this host, started by launcher `launcher`, writing to `log`
// ("": none of its own), beating every `heartbeat_s` seconds (0: not known, as a launcher's
// record before its worker's own). What every holder records, beside its launcher's own tags.
WorkerTags holder_tags(const std::string& launcher, long long pid, const std::string& log = "",
                       double heartbeat_s = 0);

// The heartbeat interval the holder recorded in `tags`, or `otherwise` when it recorded none
// (tags from before it, or an earlier holder's).
double recorded_heartbeat_interval(const db::RunRecord& run, const WorkerTags& tags,
                                   double otherwise);

// Records `tags` on the run `lease` holds, with the lease's generation (worker.lease), or
// LeaseLost once it is no longer held.
void record_worker_tags(db::Store& store, const db::Lease& lease, const WorkerTags& tags);

// True when `tags` were written by an earlier holder of `run` (worker.lease below its lease):
// the process they name is not the run's worker now. Tags written before worker.lease existed
// cannot be told apart and count as current.
bool tags_of_earlier_holder(const db::RunRecord& run, const WorkerTags& tags);

// The external writer (worker.external) that holds `run` now, or "" when its holder is a
// Fathom worker -- or the tags are an earlier holder's.
std::string external_writer(const db::RunRecord& run, const WorkerTags& tags);

}  // namespace fathom::experiments
