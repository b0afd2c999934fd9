#pragma once
// The parallel-coordinates tab (issue 37.5; plot/parallel_coordinates.h): pick a sweep and one
// or more final metrics; an axis per swept key and metric, a line per run coloured by the
// last metric, diverged runs red and dashed. `fathom export plot parallel` draws the same;
// right-click exports it.
#include <optional>
#include <string>
#include <vector>

#include <QWidget>

#include "gui/workbench_view.h"
#include "plot/parallel_coordinates.h"

class QComboBox;
class QCustomPlot;
class QLabel;
class QLineEdit;

namespace fathom::gui {

class ParallelView : public QWidget, public WorkbenchView {
  Q_OBJECT
 public:
  explicit ParallelView(QWidget* parent = nullptr);

  void setStore(StoreSession* session, const QString&) override;
  void showRuns(const std::vector<db::RunRecord>& all, const std::vector<db::RunRecord>&) override;
  void reload() override { redraw(); }

  // Chooses the sweep, metrics ("valid_ppl,test_bleu") and runs filter; false when the sweep
  // is absent or nothing is shown.
  bool choose(const QString& sweep, const QString& metrics, const QString& where = {});
  const std::optional<plot::ParallelFigure>& shown() const { return shown_; }
  QCustomPlot* plot() const { return plot_; }
  QString noteText() const;  // the line under the plot

 signals:
  void error(const QString& message);

 private:
  void redraw();

  StoreSession* session_ = nullptr;
  std::string signature_;  // of the runs last drawn: ids, statuses
  QComboBox* sweep_;
  QLineEdit* metrics_;
  QLineEdit* where_;  // a runs filter (gui/where_box.h)
  QCustomPlot* plot_;
  QLabel* note_;
  std::optional<plot::ParallelFigure> shown_;
};

}  // namespace fathom::gui
