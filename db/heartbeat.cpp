#include "db/heartbeat.h"

#include <chrono>
#include <optional>

#include "db/store.h"

namespace fathom::db {

HeartbeatThread::HeartbeatThread(std::string location, int64_t run, double interval_s)
    : location_(std::move(location)), run_(run), interval_s_(interval_s) {
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

void HeartbeatThread::loop() {
  std::optional<Store> store;  // its own connection: a Store is for one thread at a time
  std::unique_lock<std::mutex> lock(mutex_);
  while (
      !wake_.wait_for(lock, std::chrono::duration<double>(interval_s_), [this] { return stop_; })) {
    lock.unlock();
    try {
      if (!store) store.emplace(Store::open(location_));
      store->touch_heartbeat(run_);
    } catch (const std::exception&) {
      store.reset();  // reopen at the next beat
    }
    lock.lock();
  }
}

}  // namespace fathom::db
