#pragma once
// The runs picked by brushing (issue 58 item 8): one object the window owns and hands to every
// view (WorkbenchView::setBrush). The Parallel tab sets it from the ranges dragged along its
// axes; the runs table shows only its runs while it is set, and says so with a way to clear it.
#include <cstdint>
#include <set>

#include <QObject>
#include <QString>

namespace fathom::gui {

class RunBrush : public QObject {
  Q_OBJECT
 public:
  explicit RunBrush(QObject* parent = nullptr) : QObject(parent) {}

  // The runs kept, and in words what kept them ("train.lr 0.001-0.004 and model.norm pre").
  void set(std::set<int64_t> runs, const QString& description);
  // No brush: every run passes. Emits cleared() and changed() when one was set.
  void clear();

  bool active() const { return active_; }
  // Every run passes while no brush is set.
  bool keeps(int64_t run) const { return !active_ || runs_.count(run) > 0; }
  const std::set<int64_t>& runs() const { return runs_; }
  const QString& description() const { return description_; }

 signals:
  void changed();
  void cleared();  // by anyone: a view drops the ranges it drew

 private:
  bool active_ = false;
  std::set<int64_t> runs_;
  QString description_;
};

}  // namespace fathom::gui
