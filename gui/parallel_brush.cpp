#include "gui/parallel_brush.h"

#include <algorithm>
#include <cmath>

#include <QStringList>

namespace fathom::gui {
namespace {

bool within(const AxisRange& r, double position) {
  return !std::isnan(position) && position >= r.low && position <= r.high;
}

}  // namespace

bool line_in_ranges(const plot::ParallelFigure& f, size_t line, const AxisRanges& ranges) {
  for (size_t a = 0; a < f.axes.size(); ++a) {
    const auto range = ranges.find(f.axes[a].name);
    if (range == ranges.end()) continue;
    if (!within(range->second, plot::axis_position(f.axes[a], f.lines[line].values[a])))
      return false;
  }
  return true;
}

QString describe_ranges(const plot::ParallelFigure& f, const AxisRanges& ranges) {
  QStringList parts;
  for (size_t a = 0; a < f.axes.size(); ++a) {
    const auto range = ranges.find(f.axes[a].name);
    if (range == ranges.end()) continue;
    const plot::ParallelAxis& axis = f.axes[a];
    QString values;
    if (!axis.numeric) {
      QStringList names;
      for (size_t c = axis.categories.size(); c-- > 0;)  // top to bottom, as drawn
        if (within(range->second, plot::axis_position(axis, static_cast<double>(c))))
          names << QString::fromStdString(axis.categories[c]);
      values = names.join(QStringLiteral(", "));
    } else {
      double low = INFINITY, high = -INFINITY;
      for (const auto& line : f.lines)
        if (within(range->second, plot::axis_position(axis, line.values[a]))) {
          low = std::min(low, line.values[a]);
          high = std::max(high, line.values[a]);
        }
      if (low <= high)
        values = low == high ? QString::number(low, 'g', 4)
                             : QStringLiteral("%1-%2").arg(QString::number(low, 'g', 4),
                                                           QString::number(high, 'g', 4));
    }
    parts << QString::fromStdString(axis.name) + QLatin1Char(' ') +
                 (values.isEmpty() ? QStringLiteral("none") : values);
  }
  return parts.join(QStringLiteral(" and "));
}

}  // namespace fathom::gui
