#pragma once
// A curve list's labels in the room they have: a run's "#12 lr=0.01,norm=pre,seed=1" or a
// group's "norm=pre, lr=0.01, sweep=depth". Cut at the right, a sweep's labels all began with
// the same settings and hid the ones that tell the entries apart.
#include <QFontMetrics>
#include <QString>
#include <QStringList>
#include <map>

namespace fathom::gui {

class LegendLabelFit {
 public:
  // The labels of every entry of the list, which decide what varies among them.
  explicit LegendLabelFit(const QStringList& labels);

  // `label` whole where it fits in `width` pixels; else its "#id " and its key=value parts,
  // those fewest other entries share first (those every entry has left out), then cut at the
  // right.
  QString fit(const QString& label, const QFontMetrics& metrics, int width) const;

 private:
  std::map<QString, int> entries_with_;  // part -> how many entries have it
  int entries_ = 0;
};

}  // namespace fathom::gui
