#include "gui/legend_label_fit.h"

#include <algorithm>
#include <set>
#include <vector>

namespace fathom::gui {
namespace {

struct Parts {
  QString prefix;     // "#12 " of a run's label, else ""
  QString suffix;     // " (n=3, 1 diverged)" of a group's, else ""
  QString separator;  // ", " between a group's parts, "," between a run name's
  QStringList parts;  // "key=value" (or any text)
};

Parts parts_of(const QString& label) {
  Parts p;
  QString rest = label;
  if (label.startsWith('#') && label.contains(' ')) {
    p.prefix = label.left(label.indexOf(' ') + 1);
    rest = label.mid(p.prefix.size());
  }
  const qsizetype open = rest.lastIndexOf(QStringLiteral(" ("));
  if (rest.endsWith(')') && open > 0) {
    p.suffix = rest.mid(open);
    rest = rest.left(open);
  }
  p.separator = rest.contains(QStringLiteral(", ")) ? QStringLiteral(", ") : QStringLiteral(",");
  p.parts = rest.split(p.separator);
  return p;
}

}  // namespace

LegendLabelFit::LegendLabelFit(const QStringList& labels) : entries_(labels.size()) {
  for (const QString& label : labels) {
    const QStringList parts = parts_of(label).parts;
    for (const QString& part : std::set<QString>(parts.begin(), parts.end())) ++entries_with_[part];
  }
}

QString LegendLabelFit::fit(const QString& label, const QFontMetrics& metrics, int width) const {
  if (metrics.horizontalAdvance(label) <= width) return label;
  const Parts p = parts_of(label);
  std::vector<std::pair<int, QString>> ranked;  // (entries with the same part, part)
  for (const QString& part : p.parts) {
    const auto it = entries_with_.find(part);
    const int sharing = it == entries_with_.end() ? 1 : it->second;
    // A part every entry has tells none apart (a list of one keeps everything).
    if (entries_ < 2 || sharing < entries_) ranked.emplace_back(sharing, part);
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  QStringList kept;
  for (const auto& [values, part] : ranked) kept << part;
  return metrics.elidedText(p.prefix + kept.join(p.separator) + p.suffix, Qt::ElideRight, width);
}

}  // namespace fathom::gui
