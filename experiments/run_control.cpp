#include "experiments/run_control.h"

#include <algorithm>
#include <cmath>

#include "base/util/process.h"
#include "db/heartbeat.h"
#include "db/run_status.h"
#include "experiments/launcher_registry.h"
#include "experiments/worker_tags.h"

namespace fathom::experiments {

CancelReport cancel_runs(db::Store& store, const std::vector<db::RunRecord>& runs,
                         const std::string& reason) {
  CancelReport report;
  for (const auto& listed : runs) {
    // The status now, not when the caller listed it: a worker may have ended it meanwhile.
    const auto run = store.find_run(std::to_string(listed.id));
    if (!run || (run->status != db::status::kQueued && run->status != db::status::kRunning))
      continue;
    // Cancelled first: a worker told to stop then sees it and does not requeue its run. Only
    // while it is still queued or running: one that ended since the read above keeps its end.
    if (!store.cancel_run(run->id, reason)) continue;
    ++report.cancelled;
    if (run->status != db::status::kRunning) continue;
    if (auto problem = stop_worker(*run, store.tags(run->id))) report.problems.push_back(*problem);
  }
  return report;
}

CancelReport cancel_sweep(db::Store& store, const std::string& sweep, const std::string& reason) {
  const auto runs = store.list_runs(sweep);
  CancelReport report = cancel_runs(store, runs, reason);
  std::vector<WorkerTags> tags;
  for (const auto& run : runs) tags.push_back(store.tags(run.id));
  auto more = cancel_pending_workers(tags);
  report.problems.insert(report.problems.end(), more.begin(), more.end());
  return report;
}

std::string shown_status(const db::RunRecord& run, double now, double timeout_s) {
  if (run.status == db::status::kRunning && run.heartbeat_at > 0 &&
      now - run.heartbeat_at > timeout_s)
    return db::status::kCrashed;
  return run.status;
}

bool never_started(const std::map<std::string, std::string>& tags) {
  return worker_job(tags).empty();
}

bool never_started(const db::RunRecord& run, const std::map<std::string, std::string>& tags) {
  if (!external_writer(run, tags).empty()) return false;  // it recorded itself with its run
  return never_started(tags) || tags_of_earlier_holder(run, tags);
}

std::optional<std::string> lost_worker(const db::Store& store, const db::RunRecord& listed,
                                       double now, double timeout_s, double blocked_until,
                                       bool worker_exists) {
  if (listed.status != db::status::kRunning) return std::nullopt;
  // `listed` may be older than the worker's last heartbeat or its recorded end: judge the run
  // as it is stored now.
  auto run = store.find_run(std::to_string(listed.id));
  if (!run || run->status != db::status::kRunning) return std::nullopt;
  // A run claimed again keeps its last holder's tags until the new worker records itself: a
  // dead process they name says nothing of the new holder (a second `sweep --resume` took
  // runs from the first's live workers that way).
  const auto tags = store.tags(run->id);
  const bool earlier_holder = tags_of_earlier_holder(*run, tags);
  // A run an external writer holds (a Python training loop, worker.external) was started by
  // no launcher, which could not tell whether it lives: its heartbeat alone says.
  const std::string external = external_writer(*run, tags);
  const bool ask_launcher = !earlier_holder && external.empty() && !worker_exists;
  if (auto gone = ask_launcher ? worker_gone(*run, tags) : std::nullopt) {
    // The worker may have recorded its end just before it exited: lost only if still running.
    run = store.find_run(std::to_string(listed.id));
    if (run && run->status == db::status::kRunning) return gone;
    return std::nullopt;
  }
  const double silent = now - std::max(run->heartbeat_at, blocked_until);
  // Only a sweep's runs are claimed by launchers and workers that record themselves; a run of
  // `fathom train` has no worker tags and is judged by its heartbeat alone.
  if (!run->sweep.empty() && external.empty() && run->host == host_name() &&
      run->heartbeat_at > 0 && silent > kUnstartedGrace && never_started(*run, tags))
    return "claimed on " + run->host + " " +
           std::to_string(static_cast<long long>(std::round(silent))) +
           " s ago, but no worker was ever started for it (whoever claimed it stopped first)";
  if (run->heartbeat_at > 0 && silent > timeout_s)
    return "no heartbeat for " + std::to_string(static_cast<long long>(std::round(silent))) +
           " s (" + (external.empty() ? "worker" : external + " writer") + " on " +
           (run->host.empty() ? std::string("an unknown host") : run->host) + ")";
  return std::nullopt;
}

namespace {

// Whether the run's current holder is the process `pid` on this host.
bool held_by_process(const db::RunRecord& run, const WorkerTags& tags,
                     std::optional<long long> pid) {
  if (!pid || tags_of_earlier_holder(run, tags) || !external_writer(run, tags).empty())
    return false;
  const auto recorded = tags.find(worker_tag::kPid);
  const auto host = tags.find(worker_tag::kHost);
  return recorded != tags.end() && host != tags.end() && host->second == host_name() &&
         recorded->second == std::to_string(*pid);
}

}  // namespace

std::vector<size_t> lock_holder_first(const db::Store& store,
                                      const std::vector<db::RunRecord>& runs,
                                      const WriteLockWatch& watch) {
  std::vector<size_t> order(runs.size());
  for (size_t i = 0; i < runs.size(); ++i) order[i] = i;
  if (!watch.holder()) return order;
  for (size_t i = 0; i < runs.size(); ++i)
    if (runs[i].status == db::status::kRunning &&
        held_by_process(runs[i], store.tags(runs[i].id), watch.holder())) {
      std::rotate(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(i),
                  order.begin() + static_cast<std::ptrdiff_t>(i) + 1);
      break;
    }
  return order;
}

std::optional<std::string> judge_lost_worker(const db::Store& store, const db::RunRecord& run,
                                             double now, double timeout_s, WriteLockWatch& watch,
                                             bool worker_exists) {
  if (run.status != db::status::kRunning) return std::nullopt;  // no tags read: 100k runs a round
  const bool holds_lock =
      watch.holder() && held_by_process(run, store.tags(run.id), watch.holder());
  auto lost = lost_worker(store, run, now, timeout_s, holds_lock ? 0 : watch.blocked_until(),
                          worker_exists);
  if (!lost || !holds_lock) return lost;
  watch.blocked_at(now);  // the others' silence until it is gone is its doing
  return *lost + ", frozen holding the run store's write lock (every other writer waited on it)";
}

std::string put_down_lost_worker(const db::Store& store, const db::RunRecord& run,
                                 const std::string& reason) {
  const auto tags = store.tags(run.id);
  if (tags_of_earlier_holder(run, tags) || !external_writer(run, tags).empty()) return reason;
  const auto done = put_down_worker(run, tags);
  return done ? reason + "; " + *done : reason;
}

std::optional<db::RunRecord> run_held_by(const db::Store& store, long long pid) {
  const std::string wanted = std::to_string(pid);
  for (const auto& [id, recorded] : store.tagged_runs(worker_tag::kPid)) {
    if (recorded != wanted) continue;
    auto run = store.find_run(std::to_string(id));
    if (run && run->status == db::status::kRunning && held_by_process(*run, store.tags(id), pid))
      return run;
  }
  return std::nullopt;
}

std::string describe_lock_holder(const db::Store& store, long long pid, double now) {
  const std::string process = process_summary(static_cast<pid_t>(pid));
  const auto run = run_held_by(store, pid);
  if (!run)
    return process +
           ", not a running run's worker: nothing of Fathom puts it down -- end its "
           "transaction or the process";
  const auto silent = static_cast<long long>(std::round(now - run->heartbeat_at));
  return process + ", the worker of run " + std::to_string(run->id) +
         (run->sweep.empty() ? std::string(" (not in a sweep)") : " of sweep " + run->sweep) +
         ", last heartbeat " + std::to_string(silent) +
         " s ago: a scheduler following a sweep on this machine puts it down once that is older "
         "than its heartbeat timeout";
}

std::optional<std::string> settle_lost_holder_elsewhere(db::Store& store,
                                                        const std::vector<db::RunRecord>& runs,
                                                        double now, double timeout_s,
                                                        WriteLockWatch& watch) {
  if (!watch.stalled()) return std::nullopt;
  const auto held = run_held_by(store, *watch.holder());
  if (!held || std::any_of(runs.begin(), runs.end(),
                           [&](const db::RunRecord& r) { return r.id == held->id; }))
    return std::nullopt;  // none, or one of `runs`: judged with them
  const double interval = recorded_heartbeat_interval(*held, store.tags(held->id),
                                                      db::HeartbeatThread::kDefaultInterval);
  const double least = db::kMinBeatsPerTimeout * interval;
  const auto lost = judge_lost_worker(store, *held, now, std::max(timeout_s, least), watch);
  if (!lost) return std::nullopt;
  const std::string reason = put_down_lost_worker(store, *held, *lost);
  if (store.write_lock_holder() == watch.holder()) return std::nullopt;  // not put down
  mark_lost(store, db::Lease{held->id, held->lease}, reason);
  return "run " + std::to_string(held->id) + " (" +
         (held->sweep.empty() ? std::string("not in a sweep") : "of sweep " + held->sweep) +
         "): " + reason;
}

bool mark_lost(db::Store& store, const db::Lease& lease, const std::string& reason) {
  try {
    store.finish_run(lease, db::status::kCrashed, reason);
    return true;
  } catch (const db::LeaseLost&) {
    return false;
  }
}

bool requeue_lost(db::Store& store, const db::Lease& lease, const std::string& reason) {
  try {
    store.requeue_run(lease, reason);
    return true;
  } catch (const db::LeaseLost&) {
    return false;
  }
}

}  // namespace fathom::experiments
