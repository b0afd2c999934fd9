#include "experiments/notify.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "db/metric_names.h"
#include "db/run_status.h"

namespace fathom::experiments {
namespace {

std::string number_text(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", v);
  return buffer;
}

std::optional<double> last_train_loss(const db::Store& store, int64_t run) {
  const int64_t last = store.last_metric_step(run, db::metric::kTrainLoss);
  if (last < 0) return std::nullopt;
  const auto points = store.metric_points_after(run, db::metric::kTrainLoss, last - 1);
  if (points.empty()) return std::nullopt;
  return points.back().value;
}

std::optional<NotifySettings> settings_from(const nlohmann::json& n) {
  if (!n.is_object()) return std::nullopt;
  NotifySettings s;
  if (n.contains("on") && n["on"].is_array())
    for (const auto& e : n["on"])
      if (e.is_string()) s.on.insert(e.get<std::string>());
  if (n.contains("command") && n["command"].is_string()) s.command = n["command"];
  if (n.contains("stalled_after_s") && n["stalled_after_s"].is_number())
    s.stalled_after_s = n["stalled_after_s"];
  if (n.contains("timeout_s") && n["timeout_s"].is_number()) s.timeout_s = n["timeout_s"];
  if (s.on.empty() || s.command.empty()) return std::nullopt;
  return s;
}

}  // namespace

std::optional<NotifySettings> notify_settings(const std::string& config_json) {
  const auto config = nlohmann::json::parse(config_json, nullptr, false);
  if (!config.is_object() || !config.contains("notify")) return std::nullopt;
  return settings_from(config["notify"]);
}

std::optional<NotifySettings> notify_section_settings(const std::optional<std::string>& notify) {
  if (!notify) return std::nullopt;
  return settings_from(nlohmann::json::parse(*notify, nullptr, false));
}

std::vector<std::string> notify_environment(const std::string& event, const db::RunRecord& run,
                                            std::optional<double> train_loss) {
  std::vector<std::string> env = {
      "FATHOM_EVENT=" + event,       "FATHOM_RUN_ID=" + std::to_string(run.id),
      "FATHOM_RUN_NAME=" + run.name, "FATHOM_STATUS=" + run.status,
      "FATHOM_SWEEP=" + run.sweep,   "FATHOM_UPDATES=" + std::to_string(run.updates),
      "FATHOM_ERROR=" + run.error,
  };
  if (train_loss) {
    env.push_back("FATHOM_METRIC=" + db::metric::kTrainLoss);
    env.push_back("FATHOM_METRIC_VALUE=" + number_text(*train_loss));
  }
  return env;
}

Notifier::Notifier(db::Store& store, std::string sweep, std::FILE* log)
    : store_(store), sweep_(std::move(sweep)), log_(log), commands_([this](const CommandEnd& end) {
        const auto& [run, event] = labels_[end.label];
        if (!end.ok && log_)
          std::fprintf(log_, "notify: %s: the command %s\n", end.label.c_str(),
                       end.outcome.c_str());
        try {
          store_.set_tag(run, kNotifyTagPrefix + event, end.outcome);
        } catch (const std::exception& e) {
          if (log_)
            std::fprintf(log_, "notify: could not record %s: %s\n", end.label.c_str(), e.what());
        }
      }) {}

const std::optional<NotifySettings>& Notifier::settings_of(int64_t run) {
  auto it = settings_.find(run);
  if (it != settings_.end()) return it->second;
  const auto record = store_.find_run(std::to_string(run));
  return settings_[run] = record ? notify_settings(record->config_json) : std::nullopt;
}

void Notifier::observe(const std::vector<db::RunRecord>& runs) {
  const double now = db::unix_now();
  for (const auto& r : runs) {
    const auto& settings = settings_of(r.id);
    if (!settings) continue;
    std::string due;
    if (r.status != db::status::kRunning) running_since_.erase(r.id);  // a new stint if resumed
    if (r.status == db::status::kRunning) {
      running_since_.emplace(r.id, now);
      if (settings->on.count(event::kStalled) && stalled(r, *settings)) due = event::kStalled;
    } else if (r.status == db::status::kDiverged || r.status == db::status::kFailed ||
               r.status == db::status::kCrashed || r.status == db::status::kFinished) {
      due = r.status;  // the event of an ended run is its status
    }
    if (due.empty() || !settings->on.count(due) || settled_.count({r.id, due})) continue;
    fire(due, r, r.id, *settings);
  }
}

// Stalled: no training-loss row for stalled_after_s, counted from the newest row's wall time
// or from when this scheduler saw the run start running, whichever is later: a run resumed
// after hours has only old rows until its first log point, and is not stalled for that.
bool Notifier::stalled(const db::RunRecord& r, const NotifySettings& settings) {
  double last = running_since_[r.id];
  const int64_t step = store_.last_metric_step(r.id, db::metric::kTrainLoss);
  if (step >= 0) {
    const auto points = store_.metric_points_after(r.id, db::metric::kTrainLoss, step - 1);
    if (!points.empty()) last = std::max(last, points.back().wall_time);
  }
  return db::unix_now() - last > settings.stalled_after_s;
}

void Notifier::sweep_finished(const std::vector<db::RunRecord>& runs) {
  if (runs.empty()) return;
  for (const auto& r : runs) {
    const auto& settings = settings_of(r.id);
    if (!settings || !settings->on.count(event::kSweepFinished)) continue;
    // Recorded on the sweep's first run: once per sweep, whichever scheduler sees its end.
    if (settled_.count({runs.front().id, event::kSweepFinished})) return;
    fire(event::kSweepFinished, r, runs.front().id, *settings);
    return;
  }
}

// Records the event on `tagged_run`, unless it is recorded already (an earlier scheduler sent
// it), then starts the command.
void Notifier::fire(const std::string& event, const db::RunRecord& run, int64_t tagged_run,
                    const NotifySettings& settings) {
  const std::string tag = kNotifyTagPrefix + event;
  try {
    if (store_.tags(tagged_run).count(tag)) {
      settled_.insert({tagged_run, event});
      return;
    }
    store_.set_tag(tagged_run, tag, "started");
  } catch (const std::exception& e) {  // the store out of reach: tried again at the next look
    if (log_)
      std::fprintf(log_, "notify: could not record %s of run %lld: %s\n", event.c_str(),
                   static_cast<long long>(tagged_run), e.what());
    return;
  }
  settled_.insert({tagged_run, event});
  // The full record: the listing the scheduler polls has no error text.
  db::RunRecord full = run;
  std::optional<double> loss;
  try {
    if (const auto record = store_.find_run(std::to_string(run.id))) full = *record;
    loss = last_train_loss(store_, run.id);
  } catch (const std::exception&) {  // the listing's fields will do
  }
  const std::string label = event == event::kSweepFinished
                                ? "sweep " + sweep_ + " " + event
                                : "run " + std::to_string(run.id) + " " + event;
  labels_[label] = {tagged_run, event};
  ++sent_;
  commands_.start(settings.command, notify_environment(event, full, loss), settings.timeout_s,
                  label);
}

}  // namespace fathom::experiments
