#include "experiments/write_lock_watch.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace fathom::experiments {

void WriteLockWatch::look(const db::Store& store, double now) {
  const auto holder = store.write_lock_holder();
  stalled_ = holder && holder == holder_;
  if (stalled_) {
    blocked_at(now);
  } else {
    held_since_ = now;
    told_ = false;
  }
  holder_ = holder;
}

std::optional<std::string> WriteLockWatch::stall_to_tell(double now) {
  if (!holder_ || told_ || now - held_since_ < kStallNoticeSeconds) return std::nullopt;
  told_ = true;
  return "the run store's write lock has been held by pid " + std::to_string(*holder_) + " for " +
         std::to_string(static_cast<long long>(now - held_since_)) +
         " s: every writer waits on it (a process stopped or hung inside a write?)";
}

void WriteLockWatch::blocked_at(double now) { blocked_until_ = std::max(blocked_until_, now); }

void WriteLockWatch::look_for_a_stall(const db::Store& store, double apart_s) {
  look(store, db::unix_now());
  if (!holder_) return;
  std::this_thread::sleep_for(std::chrono::duration<double>(apart_s));
  look(store, db::unix_now());
}

std::optional<long long> stalled_write_lock_holder(const db::Store& store, double apart_s) {
  WriteLockWatch watch;
  watch.look_for_a_stall(store, apart_s);
  return watch.stalled() ? watch.holder() : std::nullopt;
}

}  // namespace fathom::experiments
