#pragma once
// The statuses a run can have, as stored in runs.status (docs/schema.md): one vocabulary for
// the store, the trainer, the scheduler and launchers, the CLI and the desktop app, so a
// misspelt status is a compile error rather than a run no query ever finds.
#include <string>
#include <vector>

namespace fathom::db::status {

inline const std::string kQueued = "queued";
inline const std::string kRunning = "running";
inline const std::string kFinished = "finished";
inline const std::string kDiverged = "diverged";    // a research result, not an error
inline const std::string kFailed = "failed";        // an error while working (the run's error)
inline const std::string kCrashed = "crashed";      // its worker vanished (kill, OOM, lost node)
inline const std::string kCancelled = "cancelled";  // stopped on request, with a checkpoint

// Every status, in lifecycle order.
inline const std::vector<std::string>& all() {
  static const std::vector<std::string> statuses{kQueued, kRunning, kFinished, kDiverged,
                                                 kFailed, kCrashed, kCancelled};
  return statuses;
}

// Waiting or training: a worker may still write to it.
inline bool is_active(const std::string& s) { return s == kQueued || s == kRunning; }

// Ended without a result that resuming would repeat: `--resume` continues it.
inline bool is_resumable(const std::string& s) {
  return s == kCrashed || s == kCancelled || s == kFailed;
}

}  // namespace fathom::db::status
