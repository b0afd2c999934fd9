#pragma once
// The hyperparameter-importance tab (experiments/hparam_importance.h, methods.md s7): pick a
// sweep and a metric -- the sweep's final metrics, or "diverged" -- and the chart is `fathom
// export plot importance`'s (plot/importance_figure.h: each axis's, each pair's and the rest's
// share of the variance between settings, the seeds' beside them), with `fathom export
// importance`'s table of shares beside it and its notes under both. It draws again when a run
// of the store changes status (a run that finishes brings its final metrics), reading in a
// worker thread. Both export from their right-click menus.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <QWidget>

#include "db/store.h"
#include "experiments/hparam_importance.h"
#include "gui/store_worker.h"
#include "gui/workbench_view.h"

class QSettings;

class QComboBox;
class QCustomPlot;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QSplitter;
class QTableWidget;

namespace fathom::gui {

class DrawWhenShown;

class BudgetChoice;

class ImportanceView : public QWidget, public WorkbenchView {
  Q_OBJECT
 public:
  explicit ImportanceView(QWidget* parent = nullptr);

  void setStore(StoreSession* session, const QString& location) override;
  void showRuns(const std::vector<db::RunRecord>& all, const std::vector<db::RunRecord>&) override;
  void reload() override { redraw(); }
  // Read in a worker thread (gui/store_worker.h): 16,384 runs at a budget take about a second.
  bool reading() const override;
  // Returns once what was last asked for is shown (or why not is said): tests, screenshots.
  void waitForResults() const;
  // The sweep, metric, value and filter chosen last ("importance/..."): a sweep or metric not
  // in the store yet is chosen when it appears.
  void saveSettings(QSettings& settings) const override;
  void restoreSettings(const QSettings& settings) override;

  // Chooses the sweep, the metric and the runs filter (screenshots, tests); false when the
  // sweep or metric is not offered or nothing is shown.
  bool choose(const QString& sweep, const QString& metric, const QString& where = {});
  const std::optional<experiments::HparamImportance>& shown() const { return shown_; }
  QStringList metricChoices() const;
  QCustomPlot* plot() const { return plot_; }
  QTableWidget* table() const { return table_; }
  QString noteText() const;  // the notes under the chart, or why nothing is drawn
  // "At": each run's value at its end (Value) or as it stood at an equal budget.
  BudgetChoice* budget() const { return budget_; }

 signals:
  void error(const QString& message);

 private:
  // The constructor's parts.
  QHBoxLayout* buildChoiceBar();
  QSplitter* buildResults();
  void connectControls();
  // The sweep's final metrics (valid_loss first where present) and "diverged".
  void fillMetrics();
  void fillTable();
  void redraw();  // sends the read of the current choices
  // What the read found (get() rethrows what it threw), shown: chart, table and notes.
  void showRead(const std::function<experiments::HparamImportance&()>& get);
  // The chart of what is shown laid out for the plot's size (its labels' wrapping and the
  // room for the bars' values are measured against it): when drawn and after each resize.
  void relayout();

  StoreSession* session_ = nullptr;
  StoreWorker* worker_;
  DrawWhenShown* when_shown_;  // showRuns' work, while the tab is out of sight
  uint64_t asked_ = 0;         // the choices' generation: a read of older ones is not shown
  std::vector<db::RunRecord> runs_;
  std::string signature_;  // of the runs last drawn: ids and statuses
  QComboBox *sweep_, *metric_;
  QComboBox* value_;                // which value of a run (experiments::RunValue)
  BudgetChoice* budget_ = nullptr;  // or each run as it stood at a budget
  QLineEdit* where_;                // a runs filter (gui/where_box.h)
  QCustomPlot* plot_;
  QTableWidget* table_;
  QLabel* note_;
  std::optional<experiments::HparamImportance> shown_;
  bool relayout_queued_ = false;          // resizes in one event-loop pass lay out once
  QString wanted_sweep_, wanted_metric_;  // restored, until the store offers them
};

}  // namespace fathom::gui
