#pragma once
// The workbench window: the tabs of gui/views.cpp (Runs, Dashboard, Sweep editor, Compare,
// Analyses) over one run store, which it polls once a second (the runs table, then each view:
// gui/workbench_view.h). Layout, the last tab, each view's settings and recent stores are
// remembered with QSettings.
#include <memory>
#include <vector>

#include <QElapsedTimer>
#include <QMainWindow>

#include "gui/run_alerts.h"

namespace fathom::gui {

class AnalysisView;
class ComparisonView;
class DashboardView;
class RunBrush;
class RunsView;
class SweepEditor;
class WorkbenchView;
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
  // Closes every connection to the store and opens it again (View > Refresh, and a poll that
  // finds the connection stale: db::Store::connection_stale). `why`, when given, goes to the
  // status bar. False, with the reason shown, when it cannot be opened again.
  bool reconnect(const QString& why);
  // How many times a poll found the connection stale and reconnected (for tests and logs).
  int reconnects() const { return stale_reconnects_; }
  // What the store was opened with, for child processes; may hold a password: never show it.
  const QString& databaseLocation() const { return db_location_; }
  QString lastError() const { return last_error_; }
  // The alerts this window announced (gui/run_alerts.h), oldest first.
  const std::vector<RunAlert>& alertsAnnounced() const { return announced_; }

  // One poll: runs table, then the dashboard's new points, read in place (tests, screenshots,
  // a store just opened).
  void pollNow();
  // The poll timer's: the runs table's read in its StoreWorker thread, the rest once it is
  // shown (RunsView::refreshInBackground): a large store or a slow server never holds the
  // window while it is read.
  void pollInBackground();
  // Until the view has no read in flight (at most 10 s), events processed meanwhile (its
  // result shown): screenshots with data on them, tests.
  static void waitForReads(const WorkbenchView& view);
  // Saves a PNG of each view into `dir` (for docs and for checking the views offscreen).
  QStringList saveScreenshots(const QString& dir);

  // The first view of type V (nullptr if none).
  template <class V>
  V* view() const {
    for (const auto& v : views_)
      if (auto* found = qobject_cast<V*>(v.widget)) return found;
    return nullptr;
  }
  RunsView* runsView() const { return runs_; }
  // Only this sweep's runs in the runs view (and its charts), and its table in Compare
  // (fathom-gui --show-sweep); false where the store has no such sweep.
  bool showSweep(const QString& sweep);
  // The runs brushed in one view that the others honour (gui/run_brush.h).
  RunBrush* brush() const { return brush_; }
  DashboardView* dashboard() const;
  SweepEditor* sweepEditor() const { return editor_; }
  ComparisonView* comparison() const;
  AnalysisView* analyses() const;
  // File > Export...: the focused (else the first) plot or table of the current tab.
  void exportCurrent();

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void buildMenus();
  void chooseDatabase();  // File > Open: an existing store, or a new one after asking
  // An older store: asks whether to upgrade it and does; false when declined or when it failed
  // (then shown, and in `error`).
  bool offerUpgrade(const QString& where, QString& error);
  void closeStore();
  void chooseDatabaseUrl();  // File > Open URL...
  void rememberRecent(const QString& location);
  void rebuildRecentMenu();
  void showRunsInViews();
  bool beginPoll();                             // reconnects where needed; false: nothing to poll
  void finishPoll(const QElapsedTimer& timer);  // what follows the runs table's read
  // Connects a view's error(QString) and message(QString) signals, where it has them.
  void connectReports(QWidget* view);

 private slots:
  void showError(const QString& message);
  void showMessage(const QString& message);

 private:
  struct OpenView {
    QWidget* widget;
    WorkbenchView* view;
    QString screenshot;
  };

  // Run status changes announced as system notifications (gui/run_alerts.h).
  void announce(const std::vector<db::RunRecord>& runs);

  std::unique_ptr<StoreSession> session_;
  RunAlerts alerts_;
  class QSystemTrayIcon* tray_ = nullptr;  // made at the first alert, where a tray exists
  QString db_location_, last_error_;
  bool reconnect_pending_ = false;  // a reconnect failed: polls retry it
  // showError's one reopen after a read met a malformed page (see there).
  bool reopen_before_poll_ = false, reopened_after_corruption_ = false, poll_failed_ = false;
  int stale_reconnects_ = 0;
  class QTabWidget* tabs_;
  std::vector<OpenView> views_;  // in tab order
  RunsView* runs_;               // the selection the other views show
  RunBrush* brush_;              // the brushed runs, shared by every view
  SweepEditor* editor_;          // its File and Sweep menu entries
  class QMenu* recent_menu_;
  class QTimer* poll_timer_;
  std::vector<RunAlert> announced_;
};

}  // namespace fathom::gui
