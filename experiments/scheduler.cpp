#include "experiments/scheduler.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <map>
#include <thread>

#include "db/metric_names.h"
#include "db/run_status.h"
#include "db/update_rate.h"
#include "experiments/notify.h"
#include "experiments/sweep_pace.h"
#include "experiments/sweep_progress.h"

namespace fathom::experiments {
namespace {

using Clock = std::chrono::steady_clock;
// How long a dying worker's last threads may take to exit (tearing down a large address space
// on a loaded machine); as long as put_down_local waits for a worker it killed.
constexpr auto kDyingWorkerWait = std::chrono::seconds(10);

int terminal_width() {
  winsize w{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 20) return w.ws_col;
  return 120;
}

// Redraws the status block in place on a terminal; elsewhere (a log) prints the summary line
// every 30 s.
class StatusDisplay {
 public:
  explicit StatusDisplay(bool enabled) : enabled_(enabled), tty_(isatty(STDERR_FILENO)) {}
  void draw(const SweepSnapshot& s, bool force) {
    if (!enabled_) return;
    const auto now = Clock::now();
    const double since = std::chrono::duration<double>(now - last_).count();
    if (!force && since < (tty_ ? 1.0 : 30.0)) return;
    last_ = now;
    const auto lines = render_sweep_progress(s, terminal_width());
    if (!tty_) {
      std::fprintf(stderr, "%s\n", lines.front().c_str());
      return;
    }
    if (shown_ > 0) std::fprintf(stderr, "\033[%dA", shown_);  // back to the block's top
    for (const auto& line : lines) std::fprintf(stderr, "\r\033[K%s\n", line.c_str());
    for (int i = static_cast<int>(lines.size()); i < shown_; ++i)
      std::fprintf(stderr, "\r\033[K\n");
    if (shown_ > static_cast<int>(lines.size()))
      std::fprintf(stderr, "\033[%dA", shown_ - static_cast<int>(lines.size()));
    shown_ = static_cast<int>(lines.size());
    std::fflush(stderr);
  }

 private:
  bool enabled_, tty_;
  int shown_ = 0;
  Clock::time_point last_{};
};

int64_t integer_or_zero(const std::optional<std::string>& text) {
  int64_t value = 0;
  if (text) std::from_chars(text->data(), text->data() + text->size(), value);
  return value;
}

void count(SweepCounts& counts, const std::string& status) {
  if (status == db::status::kFinished)
    ++counts.finished;
  else if (status == db::status::kDiverged)
    ++counts.diverged;
  else if (status == db::status::kFailed)
    ++counts.failed;
  else if (status == db::status::kCrashed)
    ++counts.crashed;
  else if (status == db::status::kCancelled)
    ++counts.cancelled;
  else
    ++counts.other;
}

// The display's view of the sweep, from one listing of its runs' states (no configs: a run's
// max_updates is read once, from the start's config values or, for a run queued since, by id).
// Ended runs are counted over the whole sweep, as the total is: a resumed sweep's runs that
// ended before (or on another launcher) count as ended, not as still to come.
SweepSnapshot snapshot_of(const db::Store& store, const std::vector<db::RunRecord>& runs,
                          std::map<int64_t, int64_t>& max_updates) {
  SweepCounts counts;
  for (const auto& r : runs) count(counts, r.status);
  SweepSnapshot s;
  s.runs = static_cast<int>(runs.size());
  s.finished = counts.finished;
  s.diverged = counts.diverged;
  s.failed = counts.failed;
  s.crashed = counts.crashed;
  s.cancelled = counts.cancelled;
  for (const auto& r : runs) {
    if (!max_updates.count(r.id)) {
      const auto full = store.find_run(std::to_string(r.id));
      max_updates[r.id] = full ? db::max_updates_of(*full) : 0;
    }
    const int64_t total = max_updates[r.id];
    s.updates_total += total;
    const bool ended = db::is_terminal_status(r.status) && r.status != db::status::kCrashed;
    s.updates_done += ended ? total : std::min(r.updates, total);
    if (r.status == db::status::kQueued) ++s.queued;
    if (r.status != db::status::kRunning) continue;
    RunProgress p{r.id, r.name, r.updates, total, std::nullopt, r.device};
    const int64_t last = store.last_metric_step(r.id, db::metric::kTrainLoss);
    if (last >= 0) {
      const auto points = store.metric_points_after(r.id, db::metric::kTrainLoss, last - 1);
      if (!points.empty()) p.train_loss = points.back().value;
    }
    s.running.push_back(p);
  }
  return s;
}

// A record that would wait on another process's write lock (a SQLite store's: a worker frozen
// inside a transaction, db/sqlite_write_lock.h) waits a round instead: the scheduler is the one
// to put a lost holder down, and blocked in a write it never would -- it waited out the retry
// budget, then ended with the store's error. The lock is looked at just before: our
// transactions take milliseconds, so a record rarely waits even one round.
bool store_locked_now(const db::Store& store) { return store.write_lock_holder().has_value(); }

// Workers of this launcher that ended: their runs, where still running, get the exact reason
// (the exit status or signal) -- never the vaguer "is gone" a lost-worker check gives. While
// the store is locked the ends are kept (the launcher forgets them once reaped) and recorded
// at a later round.
class EndedWorkers {
 public:
  // Reaps and records; true when any worker ended since the last call.
  bool reap(db::Store& store, Launcher& launcher) {
    auto ended = launcher.poll(store);
    const bool any = !ended.empty();
    pending_.insert(pending_.end(), ended.begin(), ended.end());
    if (pending_.empty() || store_locked_now(store)) return any;
    for (const WorkerEnd& end : pending_) {
      auto record = store.find_run(std::to_string(end.run));
      // Still running under the worker's lease: it died before it could record an end.
      if (record && record->status == db::status::kRunning) {
        const db::Lease lease{end.run, end.lease ? end.lease : record->lease};
        mark_lost(store, lease, reason_for(end, lease));
      }
      put_down_.erase(end.run);
    }
    pending_.clear();
    return any;
  }
  // Lost worker `lease` of ours was put down for `reason` while another process held the lock:
  // its end, reaped later, is that verdict -- not "killed by signal 9", which is our own kill.
  void put_down(const db::Lease& lease, const std::string& reason) {
    put_down_[lease.run] = {lease.generation, reason};
  }
  // Whether run `run`'s worker ended and its record waits for the lock.
  bool waiting(int64_t run) const {
    return std::any_of(pending_.begin(), pending_.end(),
                       [&](const WorkerEnd& end) { return end.run == run; });
  }

 private:
  const std::string& reason_for(const WorkerEnd& end, const db::Lease& lease) const {
    const auto verdict = put_down_.find(end.run);
    return verdict != put_down_.end() && verdict->second.first == lease.generation
               ? verdict->second.second
               : end.reason;
  }

  std::vector<WorkerEnd> pending_;
  std::map<int64_t, std::pair<int64_t, std::string>> put_down_;  // run -> (lease, verdict)
};

// Reaps the workers that ended, waiting (up to kDyingWorkerWait) while run `run`'s own worker
// is dying: a SIGKILLed worker's leader is a zombie -- gone to the liveness check -- before its
// other threads have exited, and only then can it be reaped. Not waiting recorded the vaguer
// "its worker is gone" instead of the signal (CI, a loaded machine). True when any ended.
bool reap_dying_worker(db::Store& store, Launcher& launcher, EndedWorkers& ended,
                       const db::RunRecord& run) {
  bool any = ended.reap(store, launcher);
  const auto deadline = Clock::now() + kDyingWorkerWait;
  while (launcher.child_worker(run.id, run.lease) == ChildWorker::kDying &&
         Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    any |= ended.reap(store, launcher);
  }
  return any;
}

// The listed runs whose worker is lost: requeued when nothing of them ran (`requeued_at` then
// says when), else marked crashed; `runs` is updated to the statuses recorded. A lost worker
// holding the store's write lock is put down first, which frees it -- also one of a run not
// listed (`sweep` says so: the user learns another run was ended); the others are recorded
// only while no process holds it (a round later otherwise).
void settle_lost_workers(db::Store& store, Launcher& launcher, EndedWorkers& ended,
                         std::vector<db::RunRecord>& runs, double timeout_s, WriteLockWatch& watch,
                         std::optional<Clock::time_point>& requeued_at, const std::string& sweep) {
  const double now = db::unix_now();
  watch.look(store, now);
  if (auto elsewhere = settle_lost_holder_elsewhere(store, runs, now, timeout_s, watch))
    std::fprintf(stderr, "sweep %s: %s\n", sweep.c_str(), elsewhere->c_str());
  for (const size_t i : lock_holder_first(store, runs, watch)) {
    auto& r = runs[i];
    if (ended.waiting(r.id)) continue;  // its exact end is recorded once the lock is free
    // A living child of ours exists whatever /proc shows (between fork and exec its command
    // line is still ours): only its heartbeat can make it lost, and waitpid tells its end.
    const bool own_child_lives = r.status == db::status::kRunning &&
                                 launcher.child_worker(r.id, r.lease) == ChildWorker::kLiving;
    auto lost = judge_lost_worker(store, r, now, timeout_s, watch, own_child_lives);
    if (!lost) continue;
    // One of our own workers that died since the last reap is a zombie now, which the check
    // saw as gone: reap it first, so its run records the signal (killed by 9).
    if (reap_dying_worker(store, launcher, ended, r)) {
      auto stored = store.find_run(std::to_string(r.id));
      if (stored && stored->status != db::status::kRunning) {
        r.status = stored->status;
        continue;
      }
      if (ended.waiting(r.id)) continue;
    }
    const db::Lease lease{r.id, r.lease};  // the holder judged lost, and only it
    const bool own_child = launcher.child_worker(r.id, r.lease) != ChildWorker::kNone;
    *lost = put_down_lost_worker(store, r, *lost);  // no lock, no device left held
    if (store_locked_now(store)) {                  // another holder: recorded a round later
      if (own_child) ended.put_down(lease, *lost);  // from its reaped end, with this verdict
      continue;
    }
    if (never_started(r, store.tags(r.id))) {
      // Nothing of it ran under this claim (a scheduler that claimed it was killed before
      // its worker started): back in the queue, for this launch (or the next) to start.
      if (requeue_lost(store, lease, "requeued: " + *lost)) {
        r.status = db::status::kQueued;
        requeued_at = Clock::now();
      }
      continue;
    }
    if (mark_lost(store, lease, *lost)) r.status = db::status::kCrashed;
  }
}

}  // namespace

SweepCounts follow_sweep(db::Store& store, Launcher& launcher, const FollowOptions& options) {
  const auto start = Clock::now();
  SweepCounts counts;
  std::map<int64_t, std::string> previous;  // status of each run at the last listing
  std::map<int64_t, int64_t> max_updates;
  Notifier notifier(store, options.sweep);  // alerts (experiments/notify.h)
  for (const auto& r : store.list_run_states(options.sweep)) previous[r.id] = r.status;
  // Two values of each config, read by the store's JSON functions (parsing every config here
  // took seconds at 100k runs). A run queued since is read by id when first seen.
  for (const auto& v : store.config_values(options.sweep, {"train.max_updates", "notify"})) {
    max_updates[v.run] = integer_or_zero(v.values[0]);
    notifier.know(v.run, v.values[1]);
  }
  StatusDisplay display(options.progress);
  std::optional<int64_t> updates_at_start;
  std::optional<double> ended_pace;  // a resumed sweep's ETA before its first update
  auto last_listing = Clock::now() - std::chrono::hours(1);
  std::optional<Clock::time_point> requeued_at;  // a never-started run went back to the queue
  WriteLockWatch lock_watch;  // a frozen writer keeps every worker silent (write_lock_watch.h)
  EndedWorkers ended;
  while (true) {
    bool changed = ended.reap(store, launcher);
    const bool active = launcher.active();
    if (!changed && active && Clock::now() - last_listing < std::chrono::seconds(1)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
      continue;
    }
    last_listing = Clock::now();
    // Each second: the runs' states only, never their configs (a third of a core at 100k runs).
    auto runs = store.list_run_states(options.sweep);
    settle_lost_workers(store, launcher, ended, runs, options.heartbeat_timeout_s, lock_watch,
                        requeued_at, options.sweep);
    if (auto stall = lock_watch.stall_to_tell(db::unix_now()))
      std::fprintf(stderr, "sweep %s: %s; it is %s\n", options.sweep.c_str(), stall->c_str(),
                   describe_lock_holder(store, *lock_watch.holder(), db::unix_now()).c_str());
    notifier.observe(runs);
    notifier.poll();
    bool any_running = false;
    int queued = 0;
    for (const auto& r : runs) {
      auto& before = previous[r.id];
      if (db::is_terminal_status(r.status) && !db::is_terminal_status(before)) {
        if (launcher.ran(r.id, r.lease))
          count(counts, r.status);
        else
          ++counts.elsewhere;
      }
      before = r.status;
      any_running |= r.status == db::status::kRunning;
      queued += r.status == db::status::kQueued;
    }
    SweepSnapshot snapshot = snapshot_of(store, runs, max_updates);
    snapshot.sweep = options.sweep;
    if (!updates_at_start) {
      updates_at_start = snapshot.updates_done;
      ended_pace = ended_runs_seconds_per_update(store, runs);  // once: a dozen short reads
    }
    snapshot.updates_at_start = *updates_at_start;
    snapshot.ended_seconds_per_update = ended_pace;
    snapshot.elapsed_s = std::chrono::duration<double>(Clock::now() - start).count();
    // A run just put back in the queue gives the launcher a few seconds to claim it again
    // (an idle local launcher looks at the queue every 2 s).
    const bool just_requeued = requeued_at && Clock::now() - *requeued_at < std::chrono::seconds(5);
    const bool done = !launcher.active() && !any_running && !just_requeued;
    display.draw(snapshot, done);
    if (done) {
      counts.left_queued = queued;
      if (std::all_of(runs.begin(), runs.end(),
                      [](const auto& r) { return db::is_terminal_status(r.status); }))
        notifier.sweep_finished(runs);
      notifier.wait();  // each alert command at most its notify.timeout_s
      return counts;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
}

}  // namespace fathom::experiments
