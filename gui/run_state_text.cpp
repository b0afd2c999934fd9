#include "gui/run_state_text.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "db/run_status.h"

namespace fathom::gui {
namespace {

// train.max_updates of the stored config; 0 where absent or unreadable.
int64_t max_updates_of(const db::RunRecord& run) {
  const auto config = nlohmann::json::parse(run.config_json, nullptr, /*allow_exceptions=*/false);
  if (!config.is_object()) return 0;
  const auto train = config.find("train");
  if (train == config.end() || !train->is_object()) return 0;
  const auto max = train->find("max_updates");
  return max != train->end() && max->is_number_integer() ? max->get<int64_t>() : 0;
}

}  // namespace

QString duration_text(double seconds) {
  const long s = std::max(0L, std::lround(seconds));
  if (s >= 3600)
    return QStringLiteral("%1:%2:%3")
        .arg(s / 3600)
        .arg((s / 60) % 60, 2, 10, QLatin1Char('0'))
        .arg(s % 60, 2, 10, QLatin1Char('0'));
  return QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
}

QString run_state_text(const db::RunRecord& run, std::optional<double> seconds_per_update) {
  if (run.diverged_step) return QStringLiteral("diverged at %1").arg(*run.diverged_step);
  if (run.status != db::status::kRunning) return QString::fromStdString(run.status);
  const int64_t max = max_updates_of(run);
  if (max <= 0) return QStringLiteral("running, update %1").arg(run.updates);
  QString text = QStringLiteral("running %1/%2 (%3%)")
                     .arg(run.updates)
                     .arg(max)
                     .arg(std::lround(100.0 * run.updates / max));
  if (seconds_per_update && run.updates < max)
    text += QStringLiteral(", ETA ") +
            duration_text(*seconds_per_update * static_cast<double>(max - run.updates));
  return text;
}

}  // namespace fathom::gui
