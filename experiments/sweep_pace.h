#pragma once
// How fast a sweep goes, from its runs' logged losses' wall times (db/update_rate.h) rather than
// from a session's clock: the pace of a resumed sweep before its session has made an update (the
// terminal said "ETA ?" for minutes on a large model), and the time a sweep has left as `fathom
// sweep status` tells it from any terminal, whoever launched it (a Slurm job array's runs).
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "db/records.h"

namespace fathom::db {
class Store;
}

namespace fathom::experiments {

// The median over the sweep's ended runs (at most the `at_most` latest by id) of each one's
// last logged seconds per update (db/update_rate.h: the median of its last intervals, so a
// preemption's pause inside one is passed over). `states` is the state listing; each chosen
// run's record is read once for its log_every. nullopt where no ended run logged two losses.
std::optional<double> ended_runs_seconds_per_update(const db::Store& store,
                                                    const std::vector<db::RunRecord>& states,
                                                    std::size_t at_most = 16);

struct SweepTimeLeft {
  double seconds = 0;
  int paced_runs = 0;        // running runs whose rate is known (two logged losses or more)
  int64_t updates_left = 0;  // of its queued and running runs, the lost ones' too
};

// The updates the sweep's queued and running runs have left (each one's train.max_updates less
// its updates) over the updates a second its running runs make together now (the sum of each
// one's 1 / last logged seconds per update): as if the queued runs were as large as those
// running and taken by as many workers. `runs` are the sweep's whole records (their
// max_updates and log_every). A running run whose heartbeat is older than the timeout at `now`
// (shown crashed: experiments/run_control.h, shown_status) is lost: its updates are still to
// make -- a resume takes it again -- but it makes none now, so its last pace is not counted.
// nullopt where nothing is left or no run training now has logged two losses yet.
std::optional<SweepTimeLeft> sweep_time_left(const db::Store& store, const std::string& sweep,
                                             const std::vector<db::RunRecord>& runs, double now);

// A sweep's runs by state and its time left, from what a caller has read (the desktop app's
// Runs tab, each poll).
struct SweepStanding {
  std::string sweep;
  int runs = 0, ended = 0, running = 0, queued = 0;
  int lost =
      0;  // running in the store, their heartbeat older than the timeout: not counted running
  std::optional<SweepTimeLeft> left;
};

// The states and updates of `runs` of `sweep` (others are passed over), each one's
// train.max_updates by id (a run without one adds no updates left) and each running run's
// seconds per update now by id; the lost runs at `now` as sweep_time_left says.
SweepStanding sweep_standing(const std::vector<db::RunRecord>& runs, const std::string& sweep,
                             const std::map<int64_t, int64_t>& max_updates,
                             const std::map<int64_t, double>& seconds_per_update, double now);

}  // namespace fathom::experiments
