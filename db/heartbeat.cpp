#include "db/heartbeat.h"

#include <chrono>
#include <optional>

#include "db/store.h"

namespace fathom::db {

HeartbeatThread::HeartbeatThread(std::string location, Lease lease, double interval_s)
    : location_(std::move(location)), lease_(lease), interval_s_(interval_s) {
  thread_ = std::thread([this] { loop(); });
}

HeartbeatThread::~HeartbeatThread() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void HeartbeatThread::throw_if_lost() const {
  if (!lost_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  std::rethrow_exception(lost_error_);
}

void HeartbeatThread::loop() {
  std::optional<Store> store;  // its own connection: a Store is for one thread at a time
  std::unique_lock<std::mutex> lock(mutex_);
  while (
      !wake_.wait_for(lock, std::chrono::duration<double>(interval_s_), [this] { return stop_; })) {
    lock.unlock();
    std::exception_ptr lost;
    try {
      if (!store) store.emplace(Store::open(location_));
      store->touch_heartbeat(lease_);
    } catch (const LeaseLost&) {
      lost = std::current_exception();
    } catch (const std::exception&) {
      store.reset();  // reopen at the next beat
    }
    lock.lock();
    if (lost) {
      lost_error_ = lost;
      lost_ = true;
      return;  // nothing more to beat for
    }
  }
}

}  // namespace fathom::db
