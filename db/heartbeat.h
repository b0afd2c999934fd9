#pragma once
// A worker's pulse: a background thread with its own store connection that refreshes a
// running run's heartbeat_at every `interval` seconds, whatever the trainer is doing (loading
// data, a long validation, beam search). The scheduler on any machine judges a worker lost
// when its run's heartbeat is older than a timeout (experiments/run_control.h), so this is
// what makes liveness work across machines. The trainer's own heartbeats carry progress.
//
// The beat is the holder's write (db/lease.h): once the run is no longer this worker's
// (declared lost and requeued, cancelled, taken by another worker) the beat is refused, and
// lost() says so -- the trainer stops at its next update without writing anything more.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "db/lease.h"

namespace fathom::db {

// The shortest interval a worker may beat at (tests and fast failure detection; each beat is a
// write transaction on the store).
constexpr double kMinHeartbeatInterval = 0.5;
// A worker counts as lost only after missing this many beats: one late beat (a busy store, a
// slow disk) is not a lost worker.
constexpr double kMinBeatsPerTimeout = 3;

class HeartbeatThread {
 public:
  // `location`: the store (Store::location()). Errors while beating (a store briefly away)
  // are swallowed: the next beat retries, and a long outage shows as a stale heartbeat.
  HeartbeatThread(std::string location, Lease lease, double interval_s);
  ~HeartbeatThread();  // stops and joins
  HeartbeatThread(const HeartbeatThread&) = delete;
  HeartbeatThread& operator=(const HeartbeatThread&) = delete;

  // Whether a beat was refused because the run is no longer held by `lease`; then
  // throw_if_lost() rethrows that LeaseLost (what the run is now).
  bool lost() const { return lost_.load(); }
  void throw_if_lost() const;

  // Seconds between beats of workers (and the default of `fathom train`).
  static constexpr double kDefaultInterval = 20;

 private:
  void loop();
  std::string location_;
  Lease lease_;
  double interval_s_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::atomic<bool> lost_{false};
  std::exception_ptr lost_error_;
  std::thread thread_;
};

}  // namespace fathom::db
