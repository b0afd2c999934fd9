#pragma once
// The analyses tab: the stored results of `fathom analyze` for the runs selected in the Runs
// view (and the config analyses, which belong to no run), one drawn at a time
// (analysis_panel.h); and a bar to compute a new one, which runs the command line in a child
// process with progress, elapsed time and Cancel (analysis_runner.h), then reloads from the
// store and shows the new result.
#include <optional>
#include <vector>

#include <QTemporaryDir>
#include <QTimer>
#include <QWidget>

#include "db/store.h"
#include "gui/workbench_view.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSplitter;
class QTableWidget;

namespace fathom::gui {

class AnalysisPanel;
class AnalysisRunner;
struct StoreSession;

class AnalysisView : public QWidget, public WorkbenchView {
  Q_OBJECT
 public:
  explicit AnalysisView(QWidget* parent = nullptr);

  // WorkbenchView: the selected runs; Refresh re-reads results computed from a terminal.
  void setStore(StoreSession* session, const QString& location) override {
    setSession(session, location);
  }
  void showRuns(const std::vector<db::RunRecord>&,
                const std::vector<db::RunRecord>& selected) override {
    setRuns(selected);
  }

  void setSession(StoreSession* session, const QString& db_location);
  // The runs view's selection: whose results are listed, and the run Compute analyses.
  void setRuns(const std::vector<db::RunRecord>& runs);
  // Re-reads the list of stored results (keeps the shown one selected).
  void reload() override;
  // Each second: re-reads the list when a result was stored since (e.g. from a terminal).
  void poll() override;
  // Selects and draws a stored result; false when it is not in the list.
  bool showAnalysis(int64_t id);
  // The command line Compute would run for the current choices (without --db), or an error.
  QStringList computeArguments(QString* error);
  // A stored result Compute would repeat: the selected run's newest of the chosen kind and
  // checkpoint (nullopt: none, or a kind that builds its own models from configs).
  std::optional<db::AnalysisRecord> storedDuplicate() const;

  QTableWidget* results() const { return results_; }
  AnalysisPanel* panel() const { return panel_; }
  AnalysisRunner* runner() const { return runner_; }
  QComboBox* kindBox() const { return kind_; }
  QComboBox* checkpointBox() const { return checkpoint_; }
  QLineEdit* optionsEdit() const { return options_; }
  QCheckBox* allRuns() const { return all_; }  // "All runs": every run's results listed
  QString statusText() const;

 public slots:
  void compute();
  void cancel();

 signals:
  void error(const QString& message);
  void message(const QString& text);

 private:
  // The constructor's parts.
  QSplitter* buildResults();
  void buildComputeBar();
  void layOut(QSplitter* split);
  void connectParts();
  void showSelected();
  void kindChanged();
  void updateButtons();
  void offerCheckpoints();
  // What the panel says when nothing is listed: select a run, tick All runs, or Compute.
  QString emptyReason() const;
  // Compute of a result already stored asks first; true: compute (a second result).
  bool confirmRecompute();

  StoreSession* session_ = nullptr;
  QString db_location_;
  std::vector<db::RunRecord> runs_;
  std::vector<db::Artifact> run_artifacts_;  // the one selected run's, for its checkpoints
  std::vector<db::AnalysisRecord> records_;  // the listed results, in list order
  std::optional<int64_t> shown_;
  int64_t newest_listed_ = -1;  // the store's newest analysis id at the last reload

  QLabel* subject_;
  QCheckBox* all_;
  QTableWidget* results_;
  AnalysisPanel* panel_;
  QComboBox *kind_, *checkpoint_;
  QLineEdit* options_;
  QPushButton *compute_, *cancel_;
  QProgressBar* progress_;
  QLabel* status_;
  AnalysisRunner* runner_;
  QTimer tick_;  // elapsed time while an analysis runs
  QString last_line_;
  std::unique_ptr<QTemporaryDir> config_dir_;  // output-shift reads the run's config from here
};

}  // namespace fathom::gui
