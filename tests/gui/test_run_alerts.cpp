// The desktop app's alerts (gui/run_alerts.h): a run the window saw live that then ends is
// announced once, with its status and error; runs that had ended before the window first saw
// them, cancelled runs and runs still running are not; a run whose worker went silent is
// announced crashed. The main window announces what its poll sees (its status bar, and the tray
// where there is one).
#include <QCoreApplication>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "db/records.h"
#include "db/run_status.h"
#include "db/store.h"
#include "gui/main_window.h"
#include "gui/run_alerts.h"
#include "tests/gui/gui_test_registry.h"

using fathom::db::RunRecord;
using namespace fathom::gui;

namespace test_run_alerts {

RunRecord record(int64_t id, const std::string& status, double heartbeat_at = 99990) {
  RunRecord r;
  r.id = id;
  r.name = "s/run" + std::to_string(id);
  r.status = status;
  r.heartbeat_at = heartbeat_at;
  return r;
}

class RunAlertsTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("fathom-test");
    QCoreApplication::setApplicationName("run-alerts-test");
    QSettings().clear();
  }

  void onlyRunsSeenLiveThatEndAreAnnouncedOnce() {
    RunAlerts alerts;
    const double now = 100000;
    // First look: nothing is announced, whatever the statuses.
    QVERIFY(alerts
                .changes({record(1, "running"), record(2, "finished"), record(3, "queued"),
                          record(4, "running"), record(5, "running")},
                         now)
                .empty());
    RunRecord diverged = record(1, "diverged");
    diverged.error = "loss exceeded 10 x the first";
    const auto changes = alerts.changes({diverged, record(2, "finished"), record(3, "finished"),
                                         record(4, "cancelled"), record(5, "running")},
                                        now);
    QCOMPARE(changes.size(), size_t(2));
    QCOMPARE(changes[0].title, QStringLiteral("Run 1 diverged"));
    QCOMPARE(changes[0].message, QStringLiteral("s/run1: loss exceeded 10 x the first"));
    QVERIFY(changes[0].bad);
    QCOMPARE(changes[1].title, QStringLiteral("Run 3 finished"));
    QVERIFY(!changes[1].bad);
    // Seen again: nothing new.
    QVERIFY(alerts.changes({diverged, record(3, "finished"), record(5, "running")}, now).empty());
    // A worker silent past the heartbeat timeout shows, and is announced, as crashed.
    const auto lost = alerts.changes({record(5, "running", now - 1000)}, now);
    QCOMPARE(lost.size(), size_t(1));
    QCOMPARE(lost[0].title, QStringLiteral("Run 5 crashed"));
  }

  void theWindowAnnouncesWhatItsPollSees() {
    QTemporaryDir dir;
    const QString db = dir.filePath("runs.db");
    auto store = fathom::db::Store::open(db.toStdString());
    fathom::db::NewRun r;
    r.name = "live";
    const int64_t run = store.create_run(r);
    const fathom::db::Lease lease = store.mark_running(run, "here", "cpu");
    MainWindow window;
    QVERIFY(window.openDatabase(db, true));
    window.pollNow();
    QVERIFY(window.alertsAnnounced().empty());
    store.finish_run(lease, fathom::db::status::kFailed, "out of memory");
    window.pollNow();
    QCOMPARE(window.alertsAnnounced().size(), size_t(1));
    QCOMPARE(window.alertsAnnounced()[0].title, QStringLiteral("Run %1 failed").arg(run));
    window.pollNow();
    QCOMPARE(window.alertsAnnounced().size(), size_t(1));
  }
};

FATHOM_GUI_TEST(RunAlertsTest);

}  // namespace test_run_alerts

#include "test_run_alerts.moc"
