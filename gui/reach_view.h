#pragma once
// The Time to target tab (experiments/time_to_target.h): how many updates each cell of a sweep
// took to first reach a value of a curve -- `fathom export plot reach`'s figure (updates against
// the batch on log-log axes, a line per column, each row's best cell, McCandlish et al.'s
// critical-batch fit where asked) above `fathom export reach`'s table, the fit in words under
// it. Rows and columns are the sweep's axes (first its layout's: the batch by the rate in the
// critical-batch study); with no target typed it reads the least demanding value every
// finished run reached, so every finished cell is complete.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <QWidget>

#include "experiments/time_to_target.h"
#include "gui/store_worker.h"
#include "gui/workbench_view.h"
#include "plot/figure.h"

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QTableWidget;

namespace fathom::gui {

class DrawWhenShown;

class ReachView : public QWidget, public WorkbenchView {
  Q_OBJECT
 public:
  explicit ReachView(QWidget* parent = nullptr);

  void setStore(StoreSession* session, const QString& location) override;
  void showRuns(const std::vector<db::RunRecord>& all, const std::vector<db::RunRecord>&) override;
  void reload() override { redraw(); }
  bool reading() const override { return worker_->busy(); }
  // The metric, target and fit, kept across sessions ("reach/...").
  void saveSettings(QSettings& settings) const override;
  void restoreSettings(const QSettings& settings) override;

  // Chooses the sweep, metric, target ("" for every finished run's), rows, columns ("" for
  // one) and the fit, and waits for the read (tests, screenshots); false when a choice is not
  // offered or nothing is drawn.
  bool choose(const QString& sweep, const QString& metric, const QString& target,
              const QString& rows, const QString& cols, bool fit);
  void waitForResults() const { worker_->waitIdle(); }
  // What is drawn: the table's cells, the fit over its rows' best cells; none where nothing is.
  const std::optional<experiments::ReachTable>& shown() const { return shown_; }
  const std::optional<experiments::CriticalBatchFit>& fit() const { return fit_; }
  QCustomPlot* plot() const { return plot_; }
  QTableWidget* table() const { return table_; }
  QLineEdit* target() const { return target_; }
  // The fit in words and the table's notes, or why there is nothing to show.
  QString noteText() const;

 signals:
  void error(const QString& message);

 private:
  void buildChoices();
  void redraw();  // sends the read of the current choices
  struct Choices {
    std::string sweep, metric, rows, where;
    std::optional<std::string> cols;  // "" for one column; none chosen yet: the sweep's own
    std::optional<double> target;     // none: the value every finished run reached
    bool fit = false;
  };
  // What the worker read: the sweep's axes and layout, the rows, columns and target used, and
  // the table with its fit and figure -- or the note saying why there is none.
  struct Read {
    QStringList axes;
    std::string rows, cols;
    std::optional<double> target;
    std::optional<experiments::ReachTable> table;
    std::optional<experiments::CriticalBatchFit> fit;
    std::optional<double> b_simple;
    std::optional<plot::Figure> figure;
    experiments::ReachOptions options;
    QString note;
  };
  static Read read(const db::Store& store, Choices c);
  void showRead(const std::function<Read&()>& get);
  void offerAxes(const Read& r);
  void fillTable(const experiments::ReachTable& t, const experiments::ReachOptions& o);

  StoreSession* session_ = nullptr;
  StoreWorker* worker_;
  DrawWhenShown* when_shown_;  // showRuns' work, while the tab is out of sight
  uint64_t asked_ = 0;         // the choices' generation: a read of older ones is not shown
  std::string signature_;      // of the runs last read: ids and statuses
  QComboBox *sweep_, *metric_, *rows_, *cols_;
  QLineEdit *target_, *where_;
  QCheckBox* fit_box_;
  QCustomPlot* plot_;
  QTableWidget* table_;
  QLabel* note_;
  std::optional<experiments::ReachTable> shown_;
  std::optional<experiments::CriticalBatchFit> fit_;
  std::optional<plot::Figure> figure_;  // as drawn: laid out again when the plot is resized
};

}  // namespace fathom::gui
