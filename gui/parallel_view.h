#pragma once
// The parallel-coordinates tab (issue 37.5; plot/parallel_coordinates.h): pick a sweep and one
// or more final metrics; an axis per swept key and metric, a line per run coloured by the
// last metric, diverged runs red and dashed. `fathom export plot parallel` draws the same;
// right-click exports it. Dragging along an axis brushes a range of it (several axes: a run
// must lie in each); the brushed runs keep their colours, the others fade, and the shared
// RunBrush (gui/run_brush.h) filters the runs table to them. A click on an axis drops its
// range; Clear brush (or Escape) drops all. Hovering over a line names its run.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <QPen>
#include <QWidget>

#include "gui/parallel_brush.h"
#include "gui/workbench_view.h"
#include "plot/parallel_coordinates.h"

class QCPAbstractItem;
class QComboBox;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QMouseEvent;
class QToolButton;

namespace fathom::gui {

class DrawWhenShown;
class StoreWorker;

class ParallelView : public QWidget, public WorkbenchView {
  Q_OBJECT
 public:
  explicit ParallelView(QWidget* parent = nullptr);

  void setStore(StoreSession* session, const QString&) override;
  void showRuns(const std::vector<db::RunRecord>& all, const std::vector<db::RunRecord>&) override;
  void reload() override { redraw(); }
  void setBrush(RunBrush* brush) override;
  // parallel-brushed.png: the lowest third of the last axis (the colour metric) brushed.
  void extraScreenshots(const std::function<void(const QString& file)>& shoot) override;

  // Chooses the sweep, metrics ("valid_ppl,test_bleu") and runs filter; false when the sweep
  // is absent or nothing is shown.
  // Waits for the read (in its worker thread).
  bool choose(const QString& sweep, const QString& metrics, const QString& where = {});
  bool reading() const override;  // a read of the sweep running or waiting in the worker
  void waitForResults() const;    // until the last read is shown (tests, benches)
  const std::optional<plot::ParallelFigure>& shown() const { return shown_; }
  QCustomPlot* plot() const { return plot_; }
  QString noteText() const;  // the line under the plot

  // Brushes the range between positions `from` and `to` (0 bottom, 1 top) of axis `axis`, as a
  // drag along it does; an empty range (a click) drops that axis's range.
  void brushAxis(int axis, double from, double to);
  void clearBrush();
  const AxisRanges& ranges() const { return ranges_; }
  // The lines brushed now (every line while no range is set), by index into shown()->lines.
  std::vector<size_t> brushedLines() const;
  // The hover text at a pixel of the plot: the nearest line's run and values, "" where no
  // line is within a few pixels.
  QString hoverText(const QPoint& pixel) const;

 signals:
  void error(const QString& message);

 private:
  StoreWorker* worker_;        // reads the sweep off the UI thread
  DrawWhenShown* when_shown_;  // showRuns' work, while the tab is out of sight
  uint64_t asked_ = 0;         // the choices' generation: a read of older ones is not shown
  void redraw();
  void clearLines();  // no figure, an empty plot
  // Draws what the worker read (or says what went wrong) on the UI thread.
  void showRead(const std::function<plot::ParallelFigure&()>& get);
  void onPress(QMouseEvent* event);
  void onMove(QMouseEvent* event);
  void onRelease(QMouseEvent* event);
  int axisAt(double x_pixel) const;  // the axis within a few pixels of x, else -1
  // Fades the lines outside the ranges, draws the ranges, and tells the RunBrush.
  void applyBrush();
  // Lines just added with no brush, on the layer of such lines: that layer alone repainted.
  void showAdded();
  static inline const QString kAddedLayer = QStringLiteral("added");
  static constexpr int kAddedLinesKept = 256;

  StoreSession* session_ = nullptr;
  std::string signature_;  // of the runs last drawn: ids, statuses
  QComboBox* sweep_;
  QLineEdit* metrics_;
  QLineEdit* where_;  // a runs filter (gui/where_box.h)
  QCustomPlot* plot_;
  QLabel* note_;
  QToolButton* clear_;
  std::optional<plot::ParallelFigure> shown_;
  RunBrush* brush_ = nullptr;
  AxisRanges ranges_;
  std::vector<QCPAbstractItem*> range_items_;
  std::vector<QPen> pens_;  // each line's pen as drawn, for lines that leave a brush
  int drag_axis_ = -1;      // the axis being brushed, -1 when none
  double drag_from_ = 0;    // where the drag started, as a position
};

}  // namespace fathom::gui
