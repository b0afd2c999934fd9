#pragma once
// The workbench window: Runs, Dashboard, Sweep editor, Compare and Analyses tabs over one run store, which it
// polls once a second (runs table, and the new metric points of the charted runs). Layout,
// the last tab, config columns and recent stores are remembered with QSettings.
#include <memory>

#include <QMainWindow>

namespace fathom::gui {

class AnalysisView;
class ComparisonView;
class DashboardView;
class RunsView;
class SweepEditor;
struct StoreSession;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  MainWindow();
  ~MainWindow() override;

  // Opens a store: a file path (made absolute) or a URL such as postgresql://user@host/db
  // (db/store_url.h). On failure shows the reason (a dialog unless quiet) and keeps the window
  // usable with no store. Messages, the title and the status bar show the location with any
  // password hidden. Returns whether it opened.
  bool openDatabase(const QString& location, bool quiet = false);
  // What the store was opened with, for child processes; may hold a password: never show it.
  const QString& databaseLocation() const { return db_location_; }
  QString lastError() const { return last_error_; }

  // One poll: runs table, then the dashboard's new points.
  void pollNow();
  // Saves a PNG of each view into `dir` (for docs and for checking the views offscreen).
  QStringList saveScreenshots(const QString& dir);

  RunsView* runsView() const { return runs_; }
  DashboardView* dashboard() const { return dashboard_; }
  SweepEditor* sweepEditor() const { return editor_; }
  ComparisonView* comparison() const { return comparison_; }
  AnalysisView* analyses() const { return analyses_; }
  // File > Export...: the focused (else the first) plot or table of the current tab.
  void exportCurrent();

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void buildMenus();
  void chooseDatabase();
  void chooseDatabaseUrl();  // File > Open URL...
  void rememberRecent(const QString& location);
  void rebuildRecentMenu();
  void updateDashboardRuns();
  void showError(const QString& message);

  std::unique_ptr<StoreSession> session_;
  QString db_location_, last_error_;
  class QTabWidget* tabs_;
  RunsView* runs_;
  DashboardView* dashboard_;
  SweepEditor* editor_;
  ComparisonView* comparison_;
  AnalysisView* analyses_;
  class QMenu* recent_menu_;
  class QTimer* poll_timer_;
};

}  // namespace fathom::gui
