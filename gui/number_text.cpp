#include "gui/number_text.h"

#include <cmath>

#include <QLocale>

namespace fathom::gui {

QString number_text(double value) {
  if (std::isnan(value)) return QStringLiteral("NaN");
  if (std::isinf(value)) return value > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
  const double magnitude = std::fabs(value);
  if (value == std::trunc(value) && magnitude < 1e15) {
    // The C locale's separator, whatever the desktop's: a table that reads alike everywhere.
    QLocale locale(QLocale::C);
    locale.setNumberOptions(QLocale::DefaultNumberOptions);  // C omits the group separator
    return locale.toString(static_cast<qlonglong>(value));
  }
  if (magnitude >= 1e6 || magnitude < 1e-3) return QString::number(value, 'g', 4);
  if (magnitude >= 1000) return QString::number(value, 'f', 0);  // 'g' would write 1.235e+04
  return QString::number(value, 'g', 4);
}

}  // namespace fathom::gui
