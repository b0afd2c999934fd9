// The parallel-coordinates tab: a sweep's runs as lines over its swept keys and the chosen
// metrics (plot/parallel_coordinates.h), redrawn when runs finish.
#include <qcustomplot.h>
#include <QTemporaryDir>
#include <QTest>

#include "db/run_status.h"
#include "db/store.h"
#include "gui/parallel_view.h"
#include "gui/store_session.h"
#include "tests/gui/gui_test_registry.h"

using fathom::db::NewRun;
using fathom::db::Store;

namespace test_parallel_view {

class ParallelViewTest : public QObject {
  Q_OBJECT
 private slots:
  void aSweepsRunsAreLinesOverItsAxes() {
    QTemporaryDir dir;
    const QString db = dir.filePath("p.db");
    auto store = Store::open(db.toStdString());
    int n = 0;
    for (const char* norm : {"post", "pre"})
      for (const char* lr : {"0.0001", "0.01"}) {
        NewRun r;
        r.name = std::string("s/") + norm + lr;
        r.sweep = "s";
        const int64_t id = store.create_run(r);
        store.set_tag(id, "axis.model.norm", norm);
        store.set_tag(id, "axis.train.lr", lr);
        store.set_tag(id, "axis.train.seed", "1");  // the seed is no axis of the plot
        store.set_final_metric(id, "valid_ppl", 3.0 + n++);
        store.finish_run(id, "finished");
      }
    // Runs without a result yet are left out and counted, not drawn as lines of config only.
    for (const auto& status : {fathom::db::status::kQueued, fathom::db::status::kRunning}) {
      NewRun r;
      r.name = "s/waiting-" + status;
      r.sweep = "s";
      r.status = status;
      const int64_t id = store.create_run(r);
      store.set_tag(id, "axis.model.norm", "peri");  // no ended run has it: no category
      store.set_tag(id, "axis.train.lr", "1");       // outside the ended runs' range
    }
    NewRun waiting;
    waiting.name = "q/only";
    waiting.sweep = "q";
    store.create_run(waiting);
    QString error;
    auto session = fathom::gui::StoreSession::open(db, &error);
    QVERIFY2(session, qPrintable(error));
    fathom::gui::ParallelView view;
    view.setStore(session.get(), db);
    view.showRuns(session->store.list_runs(), {});
    QVERIFY(view.choose("s", "valid_ppl"));
    const auto& f = *view.shown();
    QCOMPARE(f.axes.size(), size_t(3));  // norm, lr, valid_ppl
    QCOMPARE(f.axes[0].name, std::string("model.norm"));
    QVERIFY(f.axes[1].log);  // 1e-4 to 1e-2
    QCOMPARE(view.plot()->plottableCount(), 4);
    QCOMPARE(f.lines.size(), size_t(4));
    QCOMPARE(f.not_ended, size_t(2));
    QCOMPARE(f.axes[0].categories, (std::vector<std::string>{"post", "pre"}));
    QCOMPARE(f.axes[1].max, 0.01);
    QVERIFY2(view.noteText().contains("2 more not ended yet"), qPrintable(view.noteText()));
    // A sweep whose runs are all queued draws nothing and says why.
    QVERIFY(view.choose("q", "valid_ppl"));
    QCOMPARE(view.shown()->lines.size(), size_t(0));
    QCOMPARE(view.shown()->not_ended, size_t(1));
    QCOMPARE(view.plot()->plottableCount(), 0);
    QVERIFY(!view.choose("nope", "valid_ppl"));

    // Where keeps part of the sweep (here by a metric: post's two runs, 3 and 4) and says so;
    // a malformed filter says what is wrong and draws nothing.
    QVERIFY(view.choose("s", "valid_ppl", "valid_ppl<4.5"));
    QCOMPARE(view.shown()->lines.size(), size_t(2));
    QCOMPARE(view.shown()->axes[0].categories, (std::vector<std::string>{"post"}));
    QVERIFY2(view.noteText().contains("only the runs where valid_ppl<4.5 (2 of 6)"),
             qPrintable(view.noteText()));
    QVERIFY(!view.choose("s", "valid_ppl", "valid_ppl<"));
    QVERIFY2(view.noteText().startsWith("filter: 'valid_ppl<': "), qPrintable(view.noteText()));
    QCOMPARE(view.plot()->plottableCount(), 0);
  }
};

FATHOM_GUI_TEST(ParallelViewTest);

}  // namespace test_parallel_view

#include "test_parallel_view.moc"
