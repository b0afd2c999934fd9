#pragma once
#include <functional>
#include <map>
#include <memory>
#include <set>
// The runs view: every run of the store in a sortable table, filtered by sweep and by text,
// with the final metrics and config columns the user picks (and, with "Best", each metric's
// best point over training beside its final value); open, cancel, resume a run or cancel a
// whole sweep. The window refreshes it by polling the store (refresh()). Its column choices
// are gui/runs_columns.cpp.
#include <vector>

#include <QWidget>

#include "db/store.h"
#include "gui/runs_read.h"
#include "gui/workbench_view.h"

class QAction;
class QComboBox;
class QLabel;
class QLineEdit;
class QTableView;

namespace fathom::gui {

class RunBrush;
class RunPage;
class RunPages;
class RunsFilter;
class RunsModel;
class StoreWorker;
struct StoreSession;

class RunsView : public QWidget, public WorkbenchView {
  Q_OBJECT
 public:
  explicit RunsView(QWidget* parent = nullptr);

  // WorkbenchView: the store; "Best" kept across sessions, the columns per store.
  void setStore(StoreSession* session, const QString& location) override {
    setSession(session, location);
  }
  // Only the brushed runs while a brush is set, under a line that says so with Clear.
  void setBrush(RunBrush* brush) override;
  void saveSettings(QSettings& settings) const override;
  void restoreSettings(const QSettings& settings) override;
  // runs-filtered.png: the table under a filter on config keys, as a researcher narrows it.
  void extraScreenshots(const std::function<void(const QString& file)>& shoot) override;

  void setSession(StoreSession* session, const QString& db_location);
  // Re-reads the runs in place (a handful of statements however many runs: gui/runs_read.h).
  void refresh();
  // The same read in the view's StoreWorker thread (the window's poll): the table shows it,
  // and `then` runs, on the UI thread once read. A read sent while one is under way waits,
  // and a later one replaces it (with its `then`); a read older than one shown is dropped.
  void refreshInBackground(std::function<void()> then = {});
  bool reading() const override;

  std::vector<db::RunRecord> selectedRuns() const;
  void selectAll();
  // Selects the runs with these ids (those the table shows), nothing else.
  void selectRuns(const std::vector<int64_t>& ids);
  // Filters the table to one sweep's runs; false if the store has no such sweep.
  bool showSweep(const QString& sweep);
  // A sweep just started (the sweep editor): the selection goes -- so the other views show the
  // running runs, the new sweep's among them -- and the table shows the sweep once its runs
  // are recorded (the `fathom sweep` process queues them a moment later).
  void followSweep(const QString& sweep);
  // Beside each final metric with a better direction, its best point over training and update.
  void setShowBest(bool on);
  bool showBest() const;
  // The config keys shown, in this order; kept per store like the metrics (below). A store
  // never chosen for shows its runs' sweep axes, as resetConfigColumns() goes back to.
  void setConfigColumns(const QStringList& keys);
  void resetConfigColumns();
  // The final metrics shown, in this order (empty: all, in the presentation order); kept per
  // store (QSettings under a hash of its location) and read again when that store opens.
  void setMetricColumns(const QStringList& names);
  QStringList metricColumns() const;
  QStringList configColumns() const;

  RunsModel* model() const { return model_; }
  // The run pages open now (Open: one window per run, live while the run trains).
  RunPages* pages() const { return pages_; }
  // For --screenshot: the page of the first running run (else the newest run with curves).
  RunPage* openScreenshotPage();
  RunsFilter* filter() const { return filter_; }
  QTableView* table() const { return table_; }
  QLineEdit* filterEdit() const { return text_; }
  QLabel* filterNote() const { return filter_note_; }
  QLabel* brushNote() const { return brush_note_; }
  QLabel* hint() const { return hint_; }
  QLabel* sweepNote() const { return sweep_note_; }
  // Actions with shortcuts, for the window's menus.
  QList<QAction*> runActions() const;
  QAction* focusFilterAction() const { return focus_filter_; }

 public slots:
  void openSelected();
  // `fathom compare` of the selected runs (2-8) in a window (gui/compare_window.h).
  void compareSelected();
  void cancelSelected();
  void resumeSelected();
  void reproduceSelected();
  void deleteSelected();
  void pruneSelected();
  void cancelSweep();
  void chooseConfigColumns();
  void chooseMetricColumns();

 signals:
  void selectionChanged();
  void message(const QString& text);
  void error(const QString& text);

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  void startForEachSelected(const std::function<bool(const db::RunRecord&)>& eligible,
                            bool (*start)(const QString&, int64_t, QString*));
  // The constructor's parts.
  void buildTable();
  void buildFilterBar();
  void buildActions();
  void layOut();
  void connectParts();
  void refreshSweeps();
  RunsReadInputs readInputs() const;
  // Shows read number `read` unless a later one was shown.
  void showRead(uint64_t read, RunsRead&& runs);
  void showJobs(const RunsRead& read);
  void showBest(const RunsRead& read);
  void updateHint();
  void updateSweepNote();  // the chosen sweep's runs left and time left (gui/runs_notes.h)
  void fitColumns();
  static constexpr double kWidestColumnShare = 0.3;  // of the table's width, per column
  bool fit_when_shown_ = false;                      // fitColumns asked while hidden
  void updateActions();
  // "runs/WHAT/<hash of the store's location>": a store's own QSettings key.
  static QString columnSettingsKey(const QString& what, const QString& location);
  void restoreColumns();  // the open store's column choices

  StoreSession* session_ = nullptr;
  QString db_location_;
  RunsModel* model_;
  RunPages* pages_;
  RunsFilter* filter_;
  QTableView* table_;
  QComboBox* sweep_;
  QLineEdit* text_;
  QLabel* filter_note_;  // the filter's parse error, or "no run matches ..."
  QLabel* brush_note_;   // "brushed: ..." with a Clear link, while a brush is set
  RunBrush* brush_ = nullptr;
  std::set<int64_t> hidden_selection_;  // selected when a brush hid them
  QLabel* hint_;                        // an empty store or none: where runs come from
  QLabel* sweep_note_;                  // the chosen sweep's runs and time left, while it runs
  std::optional<experiments::SweepStanding> sweep_standing_;  // the chosen sweep's, as last read
  QAction *open_, *compare_, *cancel_, *resume_, *reproduce_, *delete_, *prune_, *cancel_sweep_,
      *columns_, *metrics_, *show_best_, *focus_filter_;
  // The runs whose tags were read once they had ended (read_runs skips them), and what the
  // tags of each run say as shown: its worker job, why an early stop ended it.
  std::set<int64_t> ended_read_;
  std::map<int64_t, QString> jobs_, early_stops_;
  int jobs_rows_ = -1;                         // the table's rows when the model last took them
  StoreWorker* worker_;                        // the window's polls read here
  std::shared_ptr<SharedRunListing> listing_;  // the runs, configs read only when new or changed
  uint64_t reads_ = 0;                         // reads sent, in place or in the worker
  uint64_t shown_read_ = 0;  // the latest read shown (or the store opened after it)
  std::set<QString> axes_;   // the sweep axes (axis.KEY tags) of the runs read
  std::map<int64_t, std::map<std::string, std::string>> run_axes_;  // each run's, by KEY
  int axes_rows_ = -1;  // the table's rows when the model last took run_axes_
  bool columns_chosen_ = false;
  QString followed_sweep_;  // followSweep's, until the store has its runs
  // Best points as last read, and each run's (updates, status) then: a run is read again only
  // once it moved on, so a poll of a finished sweep reads nothing.
  std::map<std::string, std::map<int64_t, db::MetricPoint>> best_points_;
  std::map<int64_t, std::pair<int64_t, std::string>> best_read_at_;
};

}  // namespace fathom::gui
