#pragma once
// The comparison view: pick a sweep, a row axis, a column axis and a final metric; the table is
// `fathom export table`'s (experiments/comparison_table.h): mean +- std over seeds,
// diverged@step where nothing trained, the best of each column in bold; exported to
// Markdown, LaTeX or CSV by the same code. Under it, the table as grouped bars, or as lines
// along its columns where they are depths (or other numbers) with each row's best depth
// (comparison_view_chart.cpp).
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <QWidget>

#include "db/fork_tags.h"
#include "db/store.h"
#include "experiments/comparison_table.h"
#include "gui/store_worker.h"
#include "gui/workbench_view.h"
#include "plot/axis_lines.h"
#include "plot/figure.h"

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QHBoxLayout;
class QLabel;
class QPushButton;
class QTableWidget;

namespace fathom::gui {

class DrawWhenShown;

class BudgetChoice;

struct StoreSession;

class ComparisonView : public QWidget, public WorkbenchView {
  Q_OBJECT
 public:
  explicit ComparisonView(QWidget* parent = nullptr);

  // WorkbenchView: every run (it picks a sweep's own).
  void setStore(StoreSession* session, const QString& location) override {
    location_ = location;
    setSession(session);
  }
  // Read again in the worker for every finished run: not while the tab is out of sight.
  void showRuns(const std::vector<db::RunRecord>& all, const std::vector<db::RunRecord>&) override;
  // The table is read in a worker thread (gui/store_worker.h): at a budget, every run's curve.
  bool reading() const override;
  // Returns once the table last asked for is shown (or why not is said): tests, screenshots.
  void waitForResults() const;
  // The bars' log scale, kept across sessions ("compare/logY"), as the dashboard's log y.
  void saveSettings(QSettings& settings) const override;
  void restoreSettings(const QSettings& settings) override;

  void setSession(StoreSession* session);
  // Every run of the store (the runs view's poll); redraws when something changed.
  void setRuns(const std::vector<db::RunRecord>& runs);
  // No run, status or final metric differs from those shown.
  bool sameRuns(const std::vector<db::RunRecord>& runs) const;
  QTableWidget* table() const { return table_; }
  QComboBox* sweepChoice() const { return sweep_; }
  // The axes: a fresh sweep opens on its first axis group by its second, as `fathom report`.
  QComboBox* rowsChoice() const { return rows_; }
  QComboBox* colsChoice() const { return cols_; }
  // The table as grouped bars with 95 % intervals (plot/comparison_chart.h).
  QCustomPlot* chart() const { return chart_; }
  // The reader named in errors and notes of the values read for the table.
  static inline const std::string kCompareTab = "the Compare tab";
  // The line under the table: the table's notes, or why there is no table.
  QLabel* note() const { return note_; }
  // "Log bars": the bars' value axis logarithmic (shown and exported); a cell at or below 0
  // then has no bar.
  QCheckBox* logScale() const { return log_; }
  // "Lines": where the table's numeric axis (its columns, or the rows of a one-column table)
  // has three or more values, the chart draws a line per row along it with each row's best
  // value there (plot/axis_lines.h), and the note says each best; else bars. On unless unticked
  // (kept across sessions, "compare/lines").
  QCheckBox* lines() const { return lines_; }
  // The lines the chart draws, or none where it draws bars.
  std::optional<plot::AxisLines> chartLines() const;
  // "Best over training": each run's best point of the metric's curve instead of its final value.
  QCheckBox* bestOverTraining() const { return best_; }
  // "Best variant": a cell whose runs differ in another axis shows its best variant, named.
  QCheckBox* bestVariant() const { return best_variant_; }
  // Where each run's value is read: at its end or at an equal budget (`export table --at`).
  BudgetChoice* budget() const { return budget_; }
  // "Test against": a row the others are tested against, column by column (Welch's t over the
  // seeds, Holm-adjusted over the table's tests); "(none)" first.
  QComboBox* versus() const { return versus_; }
  // "Verdicts...": the table's tests as `fathom export verdicts` reports them
  // (gui/verdicts_window.h); enabled where a row is tested against.
  QPushButton* verdictsButton() const { return verdicts_; }
  void openVerdicts();
  // Shows this sweep's table: now where the store has it, else once its runs arrive
  // (fathom-gui --show-sweep, which names the sweep before the first poll).
  void showSweep(const QString& sweep);
  // Chooses the sweep, axes and metric by name (e.g. for screenshots); false if one is absent.
  bool choose(const QString& sweep, const QString& rows, const QString& cols,
              const QString& metric);
  // Writes the shown table; the format follows the extension (.md, .tex, .csv).
  bool writeTable(const QString& path) const;
  const std::optional<experiments::ComparisonTable>& shown() const { return current_; }

 signals:
  void error(const QString& message);
  // The budget the table was last read at, found where it was "least" (nullopt: at the runs'
  // ends, or no table): the dashboard draws it on charts of its axis.
  void budgetRead(const std::optional<experiments::Budget>& budget);

 private:
  // The constructor's parts.
  void buildTable();
  QHBoxLayout* buildChoiceBar();
  QHBoxLayout* buildOptionsBar();
  void buildChart();
  void sweepChanged();
  // The chosen sweep's runs' tags, read again in the worker, and what they say: the axes
  // offered, the sweep's layout, whether it is a fork sweep; then offerAxes().
  void readSweepTags();
  struct SweepTags {
    std::map<int64_t, std::map<std::string, std::string>> tags;
    QStringList axes, layout;  // the sweep's axis groups as it varied them, the seed left out
    std::optional<db::ForkOrigin> fork_origin;
  };
  static SweepTags sweepTags(const db::Store& store, const std::vector<int64_t>& runs);
  // The rows, columns and metrics the sweep offers (a fresh one laid out as `fathom report`
  // tables it), then the table.
  void offerAxes();
  void redraw();  // sends the read of the current choices
  // What a read found: the table (tested against a row where one is chosen), its options as
  // read (a least budget's number found), the runs a budget left out, a fork's parent's value.
  struct TableRead {
    experiments::ComparisonTable table;
    experiments::TableOptions options;
    std::vector<std::string> left_out;
    std::optional<plot::AxisLines> lines;  // plot::axis_lines of the table
    std::optional<plot::BarReference> parent;
  };
  // In the worker thread: only its arguments, never the view's members.
  static TableRead readTable(const db::Store& store, experiments::TableOptions options,
                             std::vector<experiments::TableRun> runs,
                             std::optional<experiments::TableRun> parent,
                             const std::string& versus);
  // Shows what a read found (get() rethrows what it threw), or why there is no table.
  void showTable(const std::function<TableRead&()>& get);
  experiments::TableOptions tableOptions() const;
  std::vector<experiments::TableRun> tableRuns(const experiments::TableOptions& options) const;
  void fillTable(const experiments::TableOptions& options);
  void exportTable();
  void drawChart();  // the shown table's bars, on the chosen scale
  // The chart's figure: the table's bars on the chosen scale, and a fork sweep's parent's line.
  plot::Figure chartFigure() const;
  // "Best encoder_layers: ..." with a line per row of the table along its numeric axis; "" where
  // the axis has fewer than three numbers.
  QString optimaNote() const;
  // A fork sweep's parent (every run of the sweep a fork of it at one update, db/fork_tags.h) as
  // a table's run; none for any other sweep.
  std::optional<experiments::TableRun> parentRun(const experiments::TableOptions& options) const;
  // Its value of the table's metric, taken as the table takes the runs' (final, best over
  // training, or at the budget) -- the line its rescues' bars are read against.
  static std::optional<plot::BarReference> parentReference(
      std::optional<experiments::TableRun> parent, const db::Store& store,
      experiments::TableOptions options);
  static void refill(QComboBox* box, const QStringList& items);

  StoreSession* session_ = nullptr;
  StoreWorker* worker_;
  DrawWhenShown* when_shown_;  // showRuns' work, while the tab is out of sight
  uint64_t asked_ = 0;         // the choices' generation: a read of older ones is not shown
  QString location_;           // the store the command line reads for the verdicts
  std::vector<db::RunRecord> all_, runs_;  // all runs; those of the chosen sweep
  std::map<int64_t, std::map<std::string, std::string>> tags_;
  QStringList axis_choices_, layout_;          // from tags_ (readSweepTags)
  std::optional<db::ForkOrigin> fork_origin_;  // every run a fork of one run at one update
  bool tags_pending_ = false;                  // tags_ of the sweep's runs of now are being read
  uint64_t tags_asked_ = 0;                    // their reads' generation: an older one is not taken
  QComboBox *sweep_, *rows_, *cols_, *metric_, *versus_;
  QCheckBox* best_ = nullptr;
  QCheckBox* best_variant_ = nullptr;
  BudgetChoice* budget_ = nullptr;  // at the end, or at an equal budget
  // budgetRead's last, announced only when it changes.
  std::optional<experiments::Budget> read_at_;
  void announceBudget(const std::optional<experiments::Budget>& budget);
  QCheckBox* log_ = nullptr;
  QCheckBox* lines_ = nullptr;
  QPushButton* verdicts_ = nullptr;
  QTableWidget* table_;
  QCustomPlot* chart_ = nullptr;
  QLabel* note_ = nullptr;
  QString wanted_sweep_;  // showSweep's, until the store has it
  std::optional<experiments::ComparisonTable> current_;
  std::optional<plot::BarReference> parent_;   // drawn with current_
  std::optional<plot::AxisLines> axis_lines_;  // current_'s, where its axis is numeric
};

}  // namespace fathom::gui
