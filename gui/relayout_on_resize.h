#pragma once
// A chart laid out again after each resize of its plot: figures measure their labels and
// legend against the plot's size when they are set up (plot/render.h), so a chart set up
// before its window was laid out, or resized since, kept the first size's layout (the
// Importance tab's wrapped labels, the LR sensitivity tab's legend columns, the Analyses tab's
// heatmap labels).
#include <QObject>

#include <functional>

class QWidget;

namespace fathom::gui {

class RelayoutOnResize : public QObject {
 public:
  // `relayout` runs once after the resizes of one event-loop pass, after the plot's own
  // resize handling (which sets the size the layout measures). Owned by `plot`.
  RelayoutOnResize(QWidget* plot, std::function<void()> relayout);

  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  std::function<void()> relayout_;
  bool queued_ = false;
};

}  // namespace fathom::gui
