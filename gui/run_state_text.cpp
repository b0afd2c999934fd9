#include "gui/run_state_text.h"

#include <cmath>

#include "db/run_status.h"
#include "db/update_rate.h"

namespace fathom::gui {

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
  const int64_t max = db::max_updates_of(run);
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
