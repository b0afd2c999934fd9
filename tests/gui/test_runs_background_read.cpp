// The window's poll reads the runs table in the Runs view's StoreWorker thread
// (RunsView::refreshInBackground, gui/runs_read.h) and shows it on the UI thread: nothing of a
// read shows before the UI thread takes its result, `then` follows the showing, a read older
// than one already shown (a refresh in place after an action) or from a store since closed is
// dropped, and the window's timer poll reaches the other views through it.
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <memory>

#include "db/store.h"
#include "gui/main_window.h"
#include "gui/runs_model.h"
#include "gui/runs_view.h"
#include "gui/store_session.h"
#include "tests/gui/gui_test_registry.h"

using fathom::db::NewRun;
using fathom::db::Store;
using fathom::gui::RunsModel;
using fathom::gui::RunsView;
using fathom::gui::StoreSession;

namespace test_runs_background_read {

int64_t make_run(Store& store, const std::string& name) {
  NewRun r;
  r.name = name;
  r.sweep = "s";
  const int64_t id = store.create_run(r);
  store.set_tag(id, "axis.train.seed", name);
  return id;
}

// Processes events until the view's worker has no read under way (its result shown).
void wait_for(const RunsView& view) {
  fathom::gui::MainWindow::waitForReads(view);
  QVERIFY(!view.reading());
}

// A store with one run, and a Runs view showing it (read in place).
struct OneRunStore {
  QTemporaryDir dir;
  QString db = dir.filePath("runs.db");
  Store store = Store::open(db.toStdString());
  std::unique_ptr<StoreSession> session;
  RunsView view;
  OneRunStore() {
    make_run(store, "1");
    QString error;
    session = StoreSession::open(db, &error);
    view.setSession(session.get(), db);
  }
};

class RunsBackgroundReadTest : public QObject {
  Q_OBJECT
 private slots:
  // The read runs in the worker: until the UI thread takes its result the table is as it
  // was; then it shows the new run, a running run's loss, and `then` has run once.
  void aReadShowsWhenTheUiThreadTakesItAndThenFollows() {
    OneRunStore s;
    Store& store = s.store;
    RunsView& view = s.view;
    QCOMPARE(view.model()->rowCount(), 1);
    const int64_t second = make_run(store, "2");
    store.mark_running(second, "test-host", "cpu");
    store.write_metrics(second, {{10, "train_loss", 3.25, 1.7e9}});
    int thens = 0;
    view.refreshInBackground([&] { ++thens; });
    QThread::msleep(200);  // the worker has read by now, most likely; nothing shows yet
    QCOMPARE(view.model()->rowCount(), 1);
    QCOMPARE(thens, 0);
    wait_for(view);
    QCOMPARE(view.model()->rowCount(), 2);
    QCOMPARE(thens, 1);
    QCOMPARE(view.model()->runs().back().status, std::string("running"));
    QCOMPARE(
        view.model()->data(view.model()->index(1, RunsModel::LossNow), Qt::DisplayRole).toString(),
        QStringLiteral("3.25"));
  }

  // A refresh in place after the background read was sent shows the newer state; the older
  // read, taken after it, is dropped (its `then` still runs).
  void anOlderReadIsNotShownOverANewerOne() {
    OneRunStore s;
    RunsView& view = s.view;
    int thens = 0;
    view.refreshInBackground([&] { ++thens; });
    QThread::msleep(300);  // the worker reads one run
    make_run(s.store, "2");
    view.refresh();
    QCOMPARE(view.model()->rowCount(), 2);
    wait_for(view);
    QCOMPARE(view.model()->rowCount(), 2);
    QCOMPARE(thens, 1);
  }

  // A read of a store the view has since left is not shown in the next store's table.
  void aReadOfAStoreLeftIsNotShown() {
    QTemporaryDir dir;
    const QString a = dir.filePath("a.db"), b = dir.filePath("b.db");
    {
      auto store = Store::open(a.toStdString());
      make_run(store, "a1");
      make_run(store, "a2");
    }
    {
      auto store = Store::open(b.toStdString());
      make_run(store, "b1");
    }
    QString error;
    auto first = StoreSession::open(a, &error);
    RunsView view;
    view.setSession(first.get(), a);
    view.refreshInBackground();
    QThread::msleep(300);
    auto second = StoreSession::open(b, &error);
    view.setSession(second.get(), b);
    wait_for(view);
    QCOMPARE(view.model()->rowCount(), 1);
    QCOMPARE(view.model()->runs().front().name, std::string("b1"));
  }

  // The window's timer poll: the table's read in the worker, then the rest of the poll with
  // what it shows -- a run queued after the window opened is listed, one that finished is
  // announced, neither before the read is shown.
  void theWindowsTimerPollShowsNewRunsOnceRead() {
    QTemporaryDir dir;
    const QString db = dir.filePath("runs.db");
    auto store = Store::open(db.toStdString());
    const int64_t first = make_run(store, "1");
    store.mark_running(first, "test-host", "cpu");
    store.heartbeat(first, 5);  // live, not lost
    fathom::gui::MainWindow window;
    QVERIFY(window.openDatabase(db, true));
    window.pollNow();  // the alerts' first look: the run is live
    RunsView& view = *window.runsView();
    QCOMPARE(view.model()->rowCount(), 1);
    make_run(store, "2");
    store.finish_run(first, "finished");
    window.pollInBackground();
    QCOMPARE(view.model()->rowCount(), 1);  // read in the worker, not yet shown
    QVERIFY(window.alertsAnnounced().empty());
    wait_for(view);
    QCOMPARE(view.model()->rowCount(), 2);
    QCOMPARE(window.alertsAnnounced().size(), size_t{1});
    QVERIFY2(window.alertsAnnounced().front().title.contains("finished"),
             qPrintable(window.alertsAnnounced().front().title));
  }
};

FATHOM_GUI_TEST(RunsBackgroundReadTest);

}  // namespace test_runs_background_read

#include "test_runs_background_read.moc"
