#pragma once
// A worker's pulse: a background thread with its own store connection that refreshes a
// running run's heartbeat_at every `interval` seconds, whatever the trainer is doing (loading
// data, a long validation, beam search). The scheduler on any machine judges a worker lost
// when its run's heartbeat is older than a timeout (experiments/run_control.h), so this is
// what makes liveness work across machines. The trainer's own heartbeats carry progress.
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace fathom::db {

class HeartbeatThread {
 public:
  // `location`: the store (Store::location()). Errors while beating (a store briefly away)
  // are swallowed: the next beat retries, and a long outage shows as a stale heartbeat.
  HeartbeatThread(std::string location, int64_t run, double interval_s);
  ~HeartbeatThread();  // stops and joins
  HeartbeatThread(const HeartbeatThread&) = delete;
  HeartbeatThread& operator=(const HeartbeatThread&) = delete;

  // Seconds between beats of workers (and the default of `fathom train`).
  static constexpr double kDefaultInterval = 20;

 private:
  void loop();
  std::string location_;
  int64_t run_;
  double interval_s_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace fathom::db
