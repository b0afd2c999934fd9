// Tabs out of sight do not redraw on every poll (gui/draw_when_shown.h): in a window on screen,
// the Parallel and Importance tabs behind the current one keep a finished run's news until they
// are shown, and then show it; the current tab, and a view in no shown window, draw at once.
// Sweep s: rates 0.001 and 0.003, a second seed of each finishing later.
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include <string>

#include "db/store.h"
#include "gui/draw_when_shown.h"
#include "gui/importance_view.h"
#include "gui/parallel_view.h"
#include "gui/runs_signature.h"
#include "gui/store_session.h"
#include "tests/gui/gui_test_registry.h"

using fathom::db::NewRun;
using fathom::db::Store;

namespace test_draw_when_shown {

// A run of sweep s at rate `lr`, finished with valid_ppl unless `finish` is false; its id.
int64_t add_run(Store& store, const std::string& lr, double ppl, bool finish = true,
                const std::string& seed = "1") {
  NewRun r;
  r.name = "s/" + lr + "-" + seed;
  r.sweep = "s";
  const int64_t id = store.create_run(r);
  store.set_tag(id, "axis.train.lr", lr);
  store.set_tag(id, "axis.train.seed", seed);
  if (!finish) return id;
  store.set_final_metric(id, "valid_ppl", ppl);
  store.finish_run(id, "finished");
  return id;
}

class DrawWhenShownTest : public QObject {
  Q_OBJECT
 private slots:
  // The keys the tabs defer by: each run's id and status (and updates), in order, written
  // out -- two runs that swap statuses, or a run that moves on, make another key.
  void runsSignaturesSpellEachRunOut() {
    std::vector<fathom::db::RunRecord> runs(2);
    runs[0].id = 3;
    runs[0].status = "running";
    runs[0].updates = 12;
    runs[1].id = -1;  // never stored, but written whole
    runs[1].status = "queued";
    QCOMPARE(fathom::gui::runs_signature(runs), std::string("3running12;-1queued0;"));
    QCOMPARE(fathom::gui::runs_status_signature(runs), std::string("3running;-1queued;"));
    QCOMPARE(fathom::gui::runs_status_signature({}), std::string());
  }

  void tabsOutOfSightDrawWhenShown() {
    QTemporaryDir dir;
    const QString db = dir.filePath("w.db");
    auto store = Store::open(db.toStdString());
    add_run(store, "0.001", 5.0);
    add_run(store, "0.003", 4.0);
    const int64_t late = add_run(store, "0.003", 0, /*finish=*/false, "2");  // a second seed
    QString error;
    auto session = fathom::gui::StoreSession::open(db, &error);
    QVERIFY2(session, qPrintable(error));

    QTabWidget tabs;
    auto* front = new QWidget;
    auto* parallel = new fathom::gui::ParallelView;
    auto* importance = new fathom::gui::ImportanceView;
    tabs.addTab(front, QStringLiteral("Runs"));
    tabs.addTab(parallel, QStringLiteral("Parallel"));
    tabs.addTab(importance, QStringLiteral("Importance"));
    parallel->setStore(session.get(), db);
    importance->setStore(session.get(), db);
    // Before the window is shown the views draw at once.
    parallel->showRuns(session->store.list_runs(), {});
    importance->showRuns(session->store.list_runs(), {});
    importance->waitForResults();
    parallel->waitForResults();
    QVERIFY2(parallel->shown(), qPrintable(parallel->noteText()));
    QVERIFY2(importance->shown(), qPrintable(importance->noteText()));
    QCOMPARE(parallel->shown()->lines.size(), size_t(2));
    QCOMPARE(importance->shown()->runs, 2);
    tabs.resize(900, 600);
    tabs.show();
    QVERIFY(QTest::qWaitForWindowExposed(&tabs));

    // The third run finishes while the Runs tab is in front: neither tab behind reads it.
    store.set_final_metric(late, "valid_ppl", 6.0);
    store.finish_run(late, "finished");
    parallel->showRuns(session->store.list_runs(), {});
    importance->showRuns(session->store.list_runs(), {});
    QVERIFY(!importance->reading());
    QVERIFY(!parallel->reading());
    QCOMPARE(parallel->shown()->lines.size(), size_t(2));
    QCOMPARE(importance->shown()->runs, 2);

    // Shown, each draws what it was last given.
    tabs.setCurrentWidget(parallel);
    parallel->waitForResults();
    QCOMPARE(parallel->shown()->lines.size(), size_t(3));
    tabs.setCurrentWidget(importance);
    importance->waitForResults();
    QVERIFY2(importance->shown(), qPrintable(importance->noteText()));
    QCOMPARE(importance->shown()->runs, 3);

    // The tab in front draws a poll's news at once.
    const int64_t fourth = add_run(store, "0.001", 7.0, true, "2");
    QVERIFY(fourth > late);
    importance->showRuns(session->store.list_runs(), {});
    importance->waitForResults();
    QCOMPARE(importance->shown()->runs, 4);
  }

  // The keyed defer makes a tab's work (a copy of every run) once per key while it waits: the
  // polls that bring nothing new make none. The work last made is what runs when shown.
  void keyedDeferMakesItsWorkOncePerKey() {
    QTabWidget tabs;
    auto* front = new QWidget;
    auto* behind = new QWidget;
    tabs.addTab(front, QStringLiteral("front"));
    tabs.addTab(behind, QStringLiteral("behind"));
    auto* when_shown = new fathom::gui::DrawWhenShown(behind);
    int made = 0;
    std::string ran;
    const auto defer = [&](const std::string& key) {
      return when_shown->defer(key, [&, key] {
        ++made;
        return [&ran, key] { ran += key; };
      });
    };
    QVERIFY(!defer("a"));  // in no shown window: the caller works now, nothing made
    QCOMPARE(made, 0);
    tabs.resize(400, 300);
    tabs.show();
    QVERIFY(QTest::qWaitForWindowExposed(&tabs));
    QVERIFY(defer("a"));
    QVERIFY(defer("a"));
    QVERIFY(defer("a"));
    QCOMPARE(made, 1);
    QVERIFY(defer("b"));
    QCOMPARE(made, 2);
    QVERIFY(ran.empty());
    tabs.setCurrentWidget(behind);
    QCOMPARE(ran, std::string("b"));
    QVERIFY(!when_shown->pending());
    QVERIFY(!defer("b"));  // in front: works now
    QCOMPARE(made, 2);
    tabs.setCurrentWidget(front);
    QVERIFY(defer("b"));  // the key of work already done is not kept
    QCOMPARE(made, 3);
  }
};

FATHOM_GUI_TEST(DrawWhenShownTest);

}  // namespace test_draw_when_shown

#include "test_draw_when_shown.moc"
