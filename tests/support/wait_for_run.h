#pragma once
// Test support: waiting for a run that another process trains to get somewhere.
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "db/store.h"

namespace fathom::testing {

// Whether a run of the store at `db` is running with at least `updates` done (it heartbeats at
// every log point) within `seconds`; polls every `poll_ms`.
inline bool wait_for_running_updates(const std::string& db, int64_t updates, int seconds,
                                     int poll_ms = 50) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(poll_ms));
    if (!std::filesystem::exists(db)) continue;
    try {
      for (const auto& r : db::Store::open(db, db::OpenMode::ReadOnly).list_runs())
        if (r.status == "running" && r.updates >= updates) return true;
    } catch (const std::exception&) {  // the store is still being created
    }
  }
  return false;
}

}  // namespace fathom::testing
