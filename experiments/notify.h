#pragma once
// Alerts (issue 59.3; docs/sweeps.md, "Alerts"): the scheduler that follows a sweep
// (experiments/scheduler.h) runs a run's notify.command (its config's notify section, or the
// sweep file's `notify:`) when the run reaches an event its notify.on names -- diverged,
// failed, crashed, finished; stalled (running, yet no training-loss row for
// notify.stalled_after_s); and sweep_finished, when every run of the sweep has ended.
//
// `fathom train` asks the same of its one run once training is over (cli/cmd_train.cpp).
//
// Once per run and event, across scheduler restarts: the event is recorded in the store as the
// run's tag notify.<event> before its command starts (sweep_finished on the sweep's first run),
// and a run with that tag is never alerted for it again; the tag's value then says how the
// command ended ("ok", "exited with status 1: ...", "was killed after 30 s (its time limit)"),
// which is also
// logged on stderr. Commands run in child processes (experiments/notify_command.h): the
// scheduler never waits for one while it follows, and each is killed at notify.timeout_s.
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "db/store.h"
#include "experiments/notify_command.h"

namespace fathom::experiments {

inline const std::string kNotifyTagPrefix = "notify.";  // + event

// The events notify.on may name (base/config/config_schema.cpp lists the same).
namespace event {
inline const std::string kDiverged = "diverged";
inline const std::string kFailed = "failed";
inline const std::string kCrashed = "crashed";
inline const std::string kStalled = "stalled";
inline const std::string kFinished = "finished";
inline const std::string kSweepFinished = "sweep_finished";
}  // namespace event

struct NotifySettings {
  std::set<std::string> on;
  std::string command;
  double stalled_after_s = 1800, timeout_s = 30;
};

// A run's settings from its stored config (JSON); nullopt when it names no event.
std::optional<NotifySettings> notify_settings(const std::string& config_json);
// The same from the config's notify section alone (JSON text; nullopt: the config has none).
std::optional<NotifySettings> notify_section_settings(const std::optional<std::string>& notify);

// The environment a command gets: FATHOM_EVENT, FATHOM_RUN_ID, FATHOM_RUN_NAME, FATHOM_STATUS,
// FATHOM_SWEEP, FATHOM_UPDATES, FATHOM_ERROR, and FATHOM_METRIC=train_loss with
// FATHOM_METRIC_VALUE its last logged value (absent before the first log point).
std::vector<std::string> notify_environment(const std::string& event, const db::RunRecord& run,
                                            std::optional<double> train_loss);

class Notifier {
 public:
  // `log` receives one line per command that ended badly (and, with `verbose`, per alert).
  Notifier(db::Store& store, std::string sweep, std::FILE* log = stderr);

  // A run read in full (with its config): its settings, without a later read.
  void know(const db::RunRecord& run) { settings_[run.id] = notify_settings(run.config_json); }
  // A run's notify section as Store::config_values reads it ("notify").
  void know(int64_t run, const std::optional<std::string>& notify) {
    settings_[run] = notify_section_settings(notify);
  }
  // The scheduler's listing of the sweep's runs (states only): fires what is due. Cheap when
  // no run names an event: each run's config is read once.
  void observe(const std::vector<db::RunRecord>& runs);
  // The sweep ended with every run in a final state: sweep_finished, once per sweep.
  void sweep_finished(const std::vector<db::RunRecord>& runs);
  // Reaps commands that ended; never blocks.
  void poll() { commands_.poll(); }
  // Waits for the commands still running (each at most its time limit): before the scheduler
  // exits, so none outlives it unwatched.
  void wait() { commands_.wait_all(); }
  size_t alerts_sent() const { return sent_; }

 private:
  const std::optional<NotifySettings>& settings_of(int64_t run);
  void fire(const std::string& event, const db::RunRecord& run, int64_t tagged_run,
            const NotifySettings& settings);
  bool stalled(const db::RunRecord& run, const NotifySettings& settings);

  db::Store& store_;
  std::string sweep_;
  std::FILE* log_;
  std::map<int64_t, std::optional<NotifySettings>> settings_;
  std::set<std::pair<int64_t, std::string>> settled_;  // (run, event) fired or found recorded
  std::map<int64_t, double> running_since_;            // first seen running by this scheduler
  std::map<std::string, std::pair<int64_t, std::string>> labels_;  // label -> (run, event)
  size_t sent_ = 0;
  CommandRunner commands_;  // last: its destructor reports to the members above
};

}  // namespace fathom::experiments
