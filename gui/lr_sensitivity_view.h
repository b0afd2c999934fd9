#pragma once
// The learning-rate sensitivity tab (experiments/lr_sensitivity.h): pick a sweep that varies
// train.lr and a loss; the figure is `fathom export plot lr-sensitivity`'s -- the loss against
// the rate on a log axis, one curve per method with its seeds' range, diverged rates crossed
// at l0, each curve's sensitivity in its legend -- and the table under it is `fathom export
// lr-sensitivity`'s. Both export from their right-click menus. "Show: transfer across depth"
// draws `fathom export plot lr-transfer` instead -- each method's best rate against depth --
// with `fathom export lr-transfer`'s table (experiments/lr_transfer.h).
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <QWidget>

#include "db/store.h"
#include "experiments/lr_sensitivity.h"
#include "experiments/lr_transfer.h"
#include "gui/store_worker.h"
#include "gui/workbench_view.h"
#include "plot/figure.h"

class QComboBox;
class QCustomPlot;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QSplitter;
class QTableWidget;

namespace fathom::gui {

class DrawWhenShown;

class BudgetChoice;

class LrSensitivityView : public QWidget, public WorkbenchView {
  Q_OBJECT
 public:
  explicit LrSensitivityView(QWidget* parent = nullptr);

  void setStore(StoreSession* session, const QString& location) override;
  void showRuns(const std::vector<db::RunRecord>& all, const std::vector<db::RunRecord>&) override;
  void reload() override { redraw(); }
  // Read in a worker thread (gui/store_worker.h): every run's curve at a budget.
  bool reading() const override;
  // Returns once what was last asked for is shown (or why not is said): tests, screenshots.
  void waitForResults() const;
  // The At choice, kept across sessions ("lr/at").
  void saveSettings(QSettings& settings) const override;
  void restoreSettings(const QSettings& settings) override;

  // Chooses the sweep and metric by name, the runs filter, the curves' label axes ("a+b",
  // the exports' --label) and the range of rates ("LO:HI", --range) (screenshots, tests);
  // false when one is absent or nothing is shown.
  bool choose(const QString& sweep, const QString& metric, const QString& where = {},
              const QString& label = {}, const QString& range = {});
  const std::optional<experiments::LrSensitivity>& shown() const { return shown_; }
  // Shows the transfer across depth (true) or the sensitivity (false), and redraws.
  void showTransfer(bool transfer);
  const std::optional<experiments::LrTransfer>& transfer() const { return transfer_; }
  QCustomPlot* plot() const { return plot_; }
  QTableWidget* table() const { return table_; }
  // The notes under the table, or what is wrong with the filter or the label.
  QString noteText() const;
  // "Extend grid...": enabled while a curve's best rate is at an end of its rates.
  QPushButton* extendButton() const { return extend_; }
  // "At": each run's loss at its end (Value) or at an equal budget.
  BudgetChoice* budget() const { return budget_; }
  // The button's work once the sweep file is chosen: the sweep file of the next rate for those
  // curves (experiments/lr_extension.h) shown, and written beside `sweep_file` when the user
  // says so; its path, or "" when nothing was written (then a message said why).
  QString extendGridFrom(const QString& sweep_file);

 signals:
  void error(const QString& message);

 private:
  // The constructor's parts.
  QHBoxLayout* buildChoiceBar();
  void addCurveOptions(QHBoxLayout* bar);
  void extendGrid();  // asks for the sweep file, then extendGridFrom
  QSplitter* buildResults();
  void redraw();  // sends the read of the current choices
  // What a read is of: the choices when it was sent.
  struct Choices {
    bool transfer = false;  // across depth, else the sensitivity
    std::string sweep, metric, where, label, range;
    experiments::RunReading value;
  };
  // What the worker read: the sensitivity, or the transfer across depth.
  struct Read {
    std::optional<experiments::LrSensitivity> sensitivity;
    std::optional<experiments::LrTransfer> transfer;
  };
  static Read read(const db::Store& store, const Choices& c);  // throws what the loaders throw
  // Shows what a read found (get() rethrows what it threw), or why there is nothing.
  void showRead(const std::function<Read&()>& get);
  // The figure, table and notes of what is shown.
  void describe(plot::Figure& figure, experiments::TextTable& table,
                std::vector<std::string>& notes);

  StoreSession* session_ = nullptr;
  StoreWorker* worker_;
  DrawWhenShown* when_shown_;  // showRuns' work, while the tab is out of sight
  uint64_t asked_ = 0;         // the choices' generation: a read of older ones is not shown
  // Each sweep's rates from its runs' tags, and the runs whose tags were read.
  struct SweepRates {
    std::set<std::string> rates;
    std::set<int64_t> read;
  };
  std::map<std::string, SweepRates> rates_;
  bool rates_pending_ = false;  // runs' tags are being read in the worker
  uint64_t rates_asked_ = 0;    // those reads' generation: an older one is not taken
  void readRates();             // the tags of runs not read yet, in the worker
  void offerSweeps();           // the sweeps with two rates or more, then redraw()
  std::vector<db::RunRecord> runs_;
  std::string signature_;  // of the runs last drawn: ids, statuses, updates
  QComboBox *sweep_, *metric_;
  QComboBox* value_;                // which loss of a run (experiments::RunValue)
  BudgetChoice* budget_ = nullptr;  // or each run as it stood at a budget
  QLineEdit* where_;                // a runs filter (experiments/sweep_runs.h), e.g. one depth
  QLineEdit* label_;  // the axes that name the curves, "model.norm+model.init" (--label)
  QLineEdit* range_;  // the rates every sensitivity is over, "LO:HI" (--range); empty: common
  QComboBox* show_;   // sensitivity | transfer across depth
  QPushButton* extend_;
  QCustomPlot* plot_;
  QTableWidget* table_;
  QLabel* note_;
  std::optional<experiments::LrSensitivity> shown_;
  std::optional<experiments::LrTransfer> transfer_;
  std::optional<plot::Figure> figure_;  // as drawn: laid out again when the plot is resized
};

}  // namespace fathom::gui
