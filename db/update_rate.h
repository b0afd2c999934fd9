#pragma once
// How long a running run takes an update now, from the wall times of its last logged training
// losses -- what an ETA should divide by. Not the updates over the time since it first started:
// a run resumed after preemption, or a fork that began at its parent's update 5,000, has
// updates it did not make in that time (or time it spent queued), and that ETA was off by hours.
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "db/records.h"

namespace fathom::db {

class Store;

// The median over consecutive `points` (ordered by step) of wall-time gap / update gap: a gap
// that spans a pause (a preemption, a resume's queueing, a fork's start after its parent's
// copied points) is one slow interval among several, which the median passes over. nullopt
// with no two points an update or more and a positive time apart.
std::optional<double> seconds_per_update(const std::vector<MetricPoint>& points);

// train.log_every of the run's stored config; 10, the default, where absent or unreadable.
int64_t log_every_of(const RunRecord& run);

// train.max_updates of the run's stored config (the updates it is to make; an ETA's end); 0
// where absent or unreadable.
int64_t max_updates_of(const RunRecord& run);

// The logged intervals a rate is the median of.
inline constexpr int64_t kRateIntervals = 5;

// `run`'s last kRateIntervals + 1 train_loss points (two short reads): the last is its loss
// now, seconds_per_update of them its rate now. Empty before its first.
std::vector<MetricPoint> recent_train_losses(const Store& store, const RunRecord& run);

// recent_train_losses of each of `runs` in two reads however many they are (Store::poll_curves:
// one round trip each to a server), by run id; a run without a train_loss point is absent.
std::map<int64_t, std::vector<MetricPoint>> recent_train_losses(const Store& store,
                                                                const std::vector<RunRecord>& runs);

// seconds_per_update of each run's points (recent_train_losses of several runs), by run id; a
// run without a rate is absent.
std::map<int64_t, double> seconds_per_update_by_run(
    const std::map<int64_t, std::vector<MetricPoint>>& points_by_run);

// seconds_per_update(recent_train_losses(store, run)).
std::optional<double> recent_seconds_per_update(const Store& store, const RunRecord& run);

}  // namespace fathom::db
