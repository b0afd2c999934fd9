#include "experiments/sweep_queue.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <set>

#include "base/config/config_io.h"
#include "base/util/error.h"
#include "base/util/strings.h"
#include "base/util/version.h"
#include "db/run_status.h"
#include "experiments/run_control.h"
#include "experiments/worker_tags.h"

namespace fathom::experiments {

void check_run_count(const SweepSpec& spec, size_t runs, bool confirmed) {
  if (runs <= kManyRuns || confirmed) return;
  throw InputError(spec.file, spec.line, "name",
                   "the sweep expands to " + std::to_string(runs) + " runs (more than " +
                       std::to_string(kManyRuns) +
                       "); check it with --dry-run, then add --yes to queue them");
}

const std::vector<std::string>& retryable_statuses() {
  static const std::vector<std::string> statuses{db::status::kCancelled, db::status::kFailed};
  return statuses;
}

std::string axes_layout(const SweepSpec& spec) {
  std::string layout;
  for (const auto& axis : spec.axes) {
    std::string group;
    for (const auto& key : axis.keys) group += (group.empty() ? "" : "+") + key;
    layout += (layout.empty() ? "" : ",") + group;
  }
  return layout;
}

namespace {

// A run an external writer (a Python training loop, worker.external) held: Fathom cannot train
// it again. While its heartbeat is fresh it is left to it; once lost it is marked crashed.
void settle_external(db::Store& store, const db::RunRecord& record, double now,
                     double heartbeat_timeout_s, WriteLockWatch& watch, QueuedSweep& out) {
  if (record.status != db::status::kRunning) {
    ++out.kept;
    return;
  }
  auto lost = judge_lost_worker(store, record, now, heartbeat_timeout_s, watch);
  if (lost) *lost = put_down_lost_worker(store, record, *lost);
  if (lost && mark_lost(store, db::Lease{record.id, record.lease}, *lost)) {
    ++out.kept;
    out.lost.push_back("run " + std::to_string(record.id) + ": " + *lost);
  } else
    ++out.alive;
}

// Existing runs of a resumed sweep: ended ones are kept, except those whose status is in
// `retry`; crashed ones, and running ones whose worker is lost, go back to the queue; running
// ones whose worker lives are left to it. Runs of an external writer are never requeued.
void requeue_interrupted(db::Store& store, const std::vector<db::RunRecord>& existing,
                         double heartbeat_timeout_s, const std::vector<std::string>& retry,
                         QueuedSweep& out) {
  const double now = db::unix_now();
  // One look: a lost worker holding the store's write lock is put down before any requeue
  // below waits on it (experiments/write_lock_watch.h).
  WriteLockWatch watch;
  watch.look(store, now);
  for (const size_t i : lock_holder_first(store, existing, watch)) {
    const db::RunRecord& record = existing[i];
    if (record.status == db::status::kQueued) continue;
    const bool retried = std::find(retry.begin(), retry.end(), record.status) != retry.end();
    const bool interrupted =
        record.status == db::status::kCrashed || record.status == db::status::kRunning || retried;
    // Tags only of the runs that may go back to the queue: a resume of 100k ended runs reads none.
    if (interrupted && !external_writer(record, store.tags(record.id)).empty()) {
      settle_external(store, record, now, heartbeat_timeout_s, watch, out);
      continue;
    }
    if (record.status == db::status::kCrashed || retried) {
      // From that status only: a run that changed since the listing keeps its new state.
      if (store.requeue_run(record.id, "resumed after: " + record.error, {record.status}))
        ++out.requeued;
      else
        ++out.kept;
    } else if (record.status == db::status::kRunning) {
      auto lost = judge_lost_worker(store, record, now, heartbeat_timeout_s, watch);
      if (lost) *lost = put_down_lost_worker(store, record, *lost);  // no lock, no device held
      // Under the lease of the worker judged lost: it is fenced off from here on.
      if (lost &&
          requeue_lost(store, db::Lease{record.id, record.lease}, "interrupted: " + *lost)) {
        ++out.requeued;
        out.lost.push_back("run " + std::to_string(record.id) + ": " + *lost);
      } else
        ++out.alive;
    } else {
      ++out.kept;
    }
  }
}

// A Fathom process frozen holding the store's write lock whose own heartbeat says it is lost
// -- a worker of any sweep, a `fathom train` -- is put down before this sweep's first write
// waits on it (experiments/run_control.h: settle_lost_holder_elsewhere).
// Any other holder is named before the first write waits on it.
void put_down_stalled_holder(db::Store& store, const std::string& sweep, double heartbeat_timeout_s,
                             QueuedSweep& out) {
  WriteLockWatch watch;
  watch.look_for_a_stall(store);
  if (auto done =
          settle_lost_holder_elsewhere(store, {}, db::unix_now(), heartbeat_timeout_s, watch))
    out.lost.push_back(*done);
  else if (watch.stalled())
    std::fprintf(
        stderr, "sweep %s: the run store's write lock is held by %s; queueing waits on it\n",
        sweep.c_str(), describe_lock_holder(store, *watch.holder(), db::unix_now()).c_str());
}

// Takes back the runs a call recorded before it failed: a sweep is queued whole or not at all,
// so that a later `fathom sweep` of the same file is not refused for a half-queued one.
void remove_created(db::Store& store, const std::string& sweep, const std::vector<int64_t>& created,
                    const std::function<void(int64_t)>& remove) noexcept {
  size_t removed = 0;
  for (int64_t id : created) {
    try {
      remove ? remove(id) : store.delete_run(id);
      ++removed;
    } catch (const std::exception& e) {  // the store failing too: said, and the first error goes on
      std::fprintf(stderr, "sweep %s: run %lld could not be taken back: %s\n", sweep.c_str(),
                   static_cast<long long>(id), e.what());
    }
  }
  if (removed > 0)
    std::fprintf(stderr, "sweep %s: queueing failed; the %zu run(s) it had recorded were removed\n",
                 sweep.c_str(), removed);
}

}  // namespace

QueuedSweep queue_sweep(db::Store& store, const SweepSpec& spec, const std::vector<SweepRun>& runs,
                        bool resume, double heartbeat_timeout_s,
                        const std::vector<std::string>& retry, const SweepRunMaker& maker) {
  std::map<std::string, db::RunRecord> existing;
  for (auto& r : store.list_runs(spec.name)) existing[r.name] = r;
  if (!existing.empty() && !resume)
    throw InputError(spec.file, spec.line, "name",
                     "sweep '" + spec.name + "' already has " + std::to_string(existing.size()) +
                         " runs in " + store.path() + "; add --resume to continue it");
  // Existing runs keep the config they were queued with: resuming under other --set values
  // would mix two settings in one sweep, so it is refused.
  const std::string overrides = join(spec.overrides, " ");
  if (!existing.empty()) {
    const auto tags = store.tags(existing.begin()->second.id);
    const auto it = tags.find("sweep.set");
    const std::string before = it == tags.end() ? "" : it->second;
    if (before != overrides)
      throw InputError(spec.file, spec.line, "--set",
                       "sweep '" + spec.name + "' was queued with " +
                           (before.empty() ? "no --set" : "--set " + before) + ", not " +
                           (overrides.empty() ? "none" : overrides) +
                           "; resume it with the same values, or give --name for a new sweep");
  }
  QueuedSweep out;
  put_down_stalled_holder(store, spec.name, heartbeat_timeout_s, out);
  const std::string layout = axes_layout(spec);
  std::vector<db::RunRecord> earlier;
  std::vector<db::NewTaggedRun> batch;
  auto record_batch = [&] {
    const auto ids = store.create_runs(batch);
    out.created.insert(out.created.end(), ids.begin(), ids.end());
    batch.clear();
  };
  try {
    for (const auto& run : runs) {
      if (auto it = existing.find(run.name); it != existing.end()) {
        earlier.push_back(it->second);
        continue;
      }
      db::NewTaggedRun& row = batch.emplace_back();
      row.run.name = run.name;
      row.run.sweep = spec.name;
      row.run.config_json = config_to_json(run.config).dump();
      row.run.config_yaml = config_to_yaml(run.config);
      row.run.git_rev = git_revision();
      for (const auto& axis : run.axes) row.tags["axis." + axis.key] = axis.value;
      row.tags["sweep.axes"] = layout;
      if (!overrides.empty()) row.tags["sweep.set"] = overrides;
      if (maker.make) {
        out.created.push_back(maker.make(run, row.tags));
        batch.pop_back();
      } else if (batch.size() == kQueueBatch) {
        record_batch();
      }
    }
    if (!batch.empty()) record_batch();
  } catch (...) {
    remove_created(store, spec.name, out.created, maker.remove);
    throw;
  }
  requeue_interrupted(store, earlier, heartbeat_timeout_s, retry, out);
  std::set<std::string> in_file;
  for (const auto& run : runs) in_file.insert(run.name);
  for (const auto& r : store.list_run_states(spec.name)) {  // names and statuses: no configs
    if (r.status != db::status::kQueued) continue;
    ++out.queued;
    if (!in_file.count(r.name)) ++out.queued_outside_file;
  }
  return out;
}

}  // namespace fathom::experiments
