#pragma once
// A frozen writer on a SQLite store. A worker stopped inside a write transaction (SIGSTOP, a
// node that swaps, a hung disk) holds the store's write lock (db/sqlite_write_lock.h), and
// every other writer waits on it: the other workers' heartbeats and metric rows, the
// scheduler's own records. Their silence then says nothing about them, and nothing can be
// recorded until the holder is gone. A scheduler looks at the lock each round; a lost worker
// that holds it is put down first (put_down_lost_worker, experiments/run_control.h), and every
// other worker's silence counts only from the last moment the store was seen blocked.
//
// A PostgreSQL store needs none of this: the server ends a session idle inside a transaction
// after 30 s (db/pg_connection.cpp), and no write waits on another run's rows.
#include <optional>
#include <string>

#include "db/store.h"

namespace fathom::experiments {

class WriteLockWatch {
 public:
  // One look at who holds the lock (each scheduler round; once before a resume judges runs).
  void look(const db::Store& store, double now);
  // For a one-off judgement where no earlier round looked (a sweep's start, `fathom sweep
  // status`): a look, and where it found a holder a second look `apart_s` seconds later, so
  // that stalled() tells a stall from a live writer's transaction.
  void look_for_a_stall(const db::Store& store, double apart_s = 1);
  // The process holding the lock at the last look, if any.
  std::optional<long long> holder() const { return holder_; }
  // Whether the last two looks found the same process holding it: a stall, not one of the
  // milliseconds-long transactions of a live writer.
  bool stalled() const { return stalled_; }
  // Until when (unix time) every writer was kept waiting: the last look that found the lock
  // held by the same process as the look before (our transactions take milliseconds, so a
  // lock held across two rounds is a stall), or a lost holder being put down (blocked_at).
  // 0: never seen blocked.
  double blocked_until() const { return blocked_until_; }
  void blocked_at(double now);
  // Once per stall, when one process has held the lock for kStallNoticeSeconds: a line for the
  // user, who otherwise sees every worker stop at once and nothing say why (the scheduler adds
  // who the holder is: describe_lock_holder, experiments/run_control.h).
  std::optional<std::string> stall_to_tell(double now);
  static constexpr double kStallNoticeSeconds = 3;

 private:
  std::optional<long long> holder_;
  double held_since_ = 0;  // the first look that found holder_
  bool told_ = false;      // stall_to_tell said so for this holder
  bool stalled_ = false;
  double blocked_until_ = 0;
};

// The process holding the store's write lock now that still holds it `apart_s` seconds later
// (a transaction of ours takes milliseconds), else nullopt -- at once when nobody holds it. For
// a one-off view of a stalled store: `fathom sweep status`.
std::optional<long long> stalled_write_lock_holder(const db::Store& store, double apart_s = 1);

}  // namespace fathom::experiments
