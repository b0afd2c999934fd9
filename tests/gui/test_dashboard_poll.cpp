// The dashboard picks up metric points that another connection (as a training worker would)
// writes after it started, reading only the new ones in its polling thread, and redraws its
// charts with them.
#include <qcustomplot.h>
#include <QListWidget>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "db/store.h"
#include "gui/curve_plot.h"
#include "gui/dashboard_view.h"
#include "gui/metric_cache.h"
#include "gui/metric_poller.h"
#include "gui/store_session.h"
#include "plot/curve_x.h"
#include "tests/gui/gui_test_registry.h"

using fathom::db::MetricRow;
using fathom::db::NewRun;
using fathom::db::Store;
using namespace fathom::gui;

namespace test_dashboard_poll {

class DashboardPollTest : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;

  static std::vector<MetricRow> loss(int from, int to) {
    std::vector<MetricRow> rows;
    for (int s = from; s <= to; s += 10) rows.emplace_back(s, "train_loss", 5.0 - s / 100.0, 0.0);
    return rows;
  }

  // One poll through the polling thread: the points merged when its answer arrived.
  static int pollAndWait(DashboardView& view) {
    for (int i = 0; i < 500 && view.pollPending(); ++i) QTest::qWait(10);  // e.g. setRuns' poll
    if (view.pollPending()) return -3;
    QSignalSpy applied(&view, &DashboardView::pointsApplied);
    view.poll();
    if (!view.pollPending()) return -1;  // a metric list rebuild polled instead
    if (!applied.wait(5000)) return -2;
    return applied.takeFirst().at(0).toInt();
  }

 private slots:
  void cacheReadsOnlyNewPoints() {
    const QString db = dir_.filePath("cache.db");
    auto writer = Store::open(db.toStdString());
    NewRun r;
    r.name = "live";
    const int64_t run = writer.create_run(r);
    writer.write_metrics(run, loss(10, 50));

    MetricTailReader reader(db.toStdString());
    MetricCache cache;
    cache.track({run}, {"train_loss", "lr"});
    QCOMPARE(cache.poll(reader), size_t(5));
    QCOMPARE(cache.last_step(run, "train_loss"), int64_t(50));
    QCOMPARE(cache.poll(reader), size_t(0));  // nothing new, nothing read

    auto second = Store::open(db.toStdString());  // a second connection appends
    second.write_metrics(run, loss(60, 80));
    second.write_metrics(run, {{60, "lr", 1e-3, 0.0}});
    QCOMPARE(cache.poll(reader), size_t(4));
    const auto& points = cache.series(run, "train_loss");
    QCOMPARE(points.size(), size_t(8));
    QCOMPARE(points.back().step, int64_t(80));
    QCOMPARE(points.back().value, 4.2);
    QCOMPARE(cache.series(run, "lr").size(), size_t(1));

    // A resume from the checkpoint at step 60 deletes the later points and logs them again.
    second.delete_metrics_after(run, 60);
    QCOMPARE(cache.poll(reader), size_t(0));
    QCOMPARE(cache.last_step(run, "train_loss"), int64_t(60));
    second.write_metrics(run, {{70, "train_loss", 1.5, 0.0}});
    QCOMPARE(cache.poll(reader), size_t(1));
    QCOMPARE(cache.series(run, "train_loss").back().value, 1.5);

    cache.track({run}, {"lr"});  // curves no longer shown are dropped
    QVERIFY(cache.series(run, "train_loss").empty());
  }

  // The system metrics (sys.*) sit under a "System" heading in the metric list, which is no
  // metric: it cannot be ticked and gets no chart; ticking one of them charts it.
  void systemMetricsSitUnderTheirGroup() {
    const QString db = dir_.filePath("system.db");
    auto writer = Store::open(db.toStdString());
    NewRun r;
    r.name = "sys";
    const int64_t run = writer.create_run(r);
    writer.write_metrics(run, loss(10, 30));
    writer.write_metrics(run, {{10, "sys.rss_mib", 300.0, 0.0}, {10, "sys.threads", 4.0, 0.0}});
    QString error;
    auto session = StoreSession::open(db, &error);
    QVERIFY2(session, qPrintable(error));
    DashboardView view;
    view.setSession(session.get());
    view.setRuns(session->store.list_runs());
    QListWidget* list = nullptr;
    for (auto* candidate : view.findChildren<QListWidget*>())
      if (!candidate->findItems(QStringLiteral("sys.threads"), Qt::MatchExactly).isEmpty())
        list = candidate;
    QVERIFY(list);
    QStringList texts;
    for (int i = 0; i < list->count(); ++i) texts << list->item(i)->text();
    const int heading = texts.indexOf(QStringLiteral("System"));
    QVERIFY2(heading > texts.indexOf(QStringLiteral("train_loss")), qPrintable(texts.join(',')));
    QCOMPARE(texts.mid(heading + 1), (QStringList{"sys.rss_mib", "sys.threads"}));
    QVERIFY(!(list->item(heading)->flags() & Qt::ItemIsUserCheckable));
    QCOMPARE(view.shownMetrics(), QStringList{"train_loss"});  // sys.* hidden by default
    list->item(heading + 1)->setCheckState(Qt::Checked);
    QCOMPARE(view.shownMetrics(), (QStringList{"train_loss", "sys.rss_mib"}));
    QVERIFY(view.chart("sys.rss_mib"));
    QVERIFY(!view.chart("System"));
  }

  void colourBySweepAxis() {
    const QString db = dir_.filePath("axes.db");
    auto writer = Store::open(db.toStdString());
    for (const char* norm : {"post", "pre", "post"}) {
      NewRun r;
      r.name = std::string("s/norm=") + norm;
      r.sweep = "s";
      const int64_t run = writer.create_run(r);
      writer.set_tag(run, "axis.model.norm", norm);
      writer.write_metrics(run, loss(10, 30));
    }
    QString error;
    auto session = StoreSession::open(db, &error);
    QVERIFY2(session, qPrintable(error));
    DashboardView view;
    view.setSmoothing(0);
    view.setSession(session.get());
    view.setRuns(session->store.list_runs());
    QVERIFY(!view.setColourBy("axis.model.missing"));
    QVERIFY(view.setColourBy("axis.model.norm"));
    QCustomPlot* plot = view.chart("train_loss")->plot();
    QTRY_COMPARE(plot->graphCount(), 3);
    QVERIFY(plot->graph(0)->name().startsWith("model.norm=post"));
    // Runs with the same axis value share a colour; the other value gets another.
    QCOMPARE(plot->graph(0)->pen().color(), plot->graph(2)->pen().color());
    QVERIFY(plot->graph(0)->pen().color() != plot->graph(1)->pen().color());
  }

  // Seed groups: one curve per norm, the mean of its seeds with a band, the member count in
  // the legend, a diverged seed marked; the mean follows live points once half the seeds have
  // them; the hover names the members; the tokens axis places the mean at the mean tokens.
  void groupsSeedsWithBandsLive() {
    const QString db = dir_.filePath("groups.db");
    auto writer = Store::open(db.toStdString());
    std::map<std::pair<std::string, int>, int64_t> ids;
    for (const char* norm : {"post", "pre"})
      for (int seed : {1, 2, 3}) {
        NewRun r;
        r.name = std::string("s/norm=") + norm + ",seed=" + std::to_string(seed);
        r.sweep = "s";
        const int64_t run = writer.create_run(r);
        ids[{norm, seed}] = run;
        writer.set_tag(run, "axis.model.norm", norm);
        writer.set_tag(run, "axis.train.seed", std::to_string(seed));
        writer.mark_running(run, "host", "cpu");
        std::vector<MetricRow> rows;
        for (int s = 10; s <= 30; s += 10) {
          rows.emplace_back(s, "train_loss", seed + s / 10.0, 0.0);  // seed + step/10
          rows.emplace_back(s, "target_tokens", 100.0 * s * seed, 0.0);
          rows.emplace_back(s, "train_flops", 3e12 * s * seed, 0.0);
        }
        writer.write_metrics(run, rows);
      }
    writer.finish_run(ids[{"pre", 3}], "diverged", "loss is inf", 31);

    QString error;
    auto session = StoreSession::open(db, &error);
    QVERIFY2(session, qPrintable(error));
    DashboardView view;
    view.resize(900, 600);
    view.setSmoothing(0);
    view.setSession(session.get());
    view.setRuns(session->store.list_runs());
    view.setGroupBy("axes");
    QCOMPARE(view.groupBy(), QString("axes"));
    CurvePlot* chart = view.chart("train_loss");
    QVERIFY(chart);
    QTRY_VERIFY(view.cache().series(ids[{"pre", 3}], "train_loss").size() == 3);
    QTRY_VERIFY(chart->graphCount() > 0);
    QCustomPlot* plot = chart->plot();
    auto graph_named = [&](const QString& name) -> QCPGraph* {
      for (int g = 0; g < plot->graphCount(); ++g)
        if (plot->graph(g)->name() == name) return plot->graph(g);
      return nullptr;
    };
    QTRY_VERIFY(graph_named("norm=post (n=3)"));
    QVERIFY(graph_named("norm=pre (n=3, 1 diverged)"));
    QVERIFY(graph_named("diverged"));  // pre seed 3's cross
    QCPGraph* post = graph_named("norm=post (n=3)");
    // Mean over seeds 1, 2, 3 of seed + step/10: 2 + step/10.
    QCOMPARE(post->data()->size(), 3);
    QCOMPARE(post->data()->at(0)->key, 10.0);
    QCOMPARE(post->data()->at(0)->value, 3.0);
    QCOMPARE(post->data()->at(2)->value, 5.0);
    // Its band: a graph filling towards another, under the mean.
    int bands = 0;
    for (int g = 0; g < plot->graphCount(); ++g)
      bands += plot->graph(g)->channelFillGraph() != nullptr;
    QCOMPARE(bands, 2);

    // Live: seed 1 of post logs step 40 -- 1 of 3 is fewer than half; seed 2 follows.
    auto worker = Store::open(db.toStdString());
    worker.write_metrics(ids[{"post", 1}], {{40, "train_loss", 5.0, 0.0}});
    QVERIFY(pollAndWait(view) >= 0);
    QCOMPARE(graph_named("norm=post (n=3)")->data()->size(), 3);
    worker.write_metrics(ids[{"post", 2}], {{40, "train_loss", 7.0, 0.0}});
    QVERIFY(pollAndWait(view) >= 0);
    post = graph_named("norm=post (n=3)");
    QCOMPARE(post->data()->size(), 4);
    QCOMPARE(post->data()->at(3)->value, 6.0);  // (5 + 7) / 2

    // The hover names the group's members and how many the mean holds there.
    plot->replot();
    const QPoint at(int(plot->xAxis->coordToPixel(40)), int(plot->yAxis->coordToPixel(6.0)));
    const QString readout = chart->readoutAt(at);
    QVERIFY2(readout.contains("mean of 2 of 3"), qPrintable(readout));
    QVERIFY2(readout.contains("norm=post,seed=3"), qPrintable(readout));

    // Target tokens: seed k saw 100 * step * k tokens; the mean x at step 10 is 100*10*2.
    view.setXAxis(fathom::plot::XAxis::Tokens);
    QTRY_VERIFY(view.cache().series(ids[{"post", 1}], "target_tokens").size() == 3);
    view.replot();
    QTRY_VERIFY(graph_named("norm=post (n=3)") &&
                graph_named("norm=post (n=3)")->data()->at(0)->key == 2000.0);
    QCOMPARE(plot->xAxis->label(), QString("target tokens seen"));

    // Training compute: seed k's train_flops is 3e12 * step * k; the mean x at step 10, 6e13.
    view.setXAxis(fathom::plot::XAxis::Compute);
    QTRY_VERIFY(view.cache().series(ids[{"post", 1}], "train_flops").size() == 3);
    view.replot();
    QTRY_VERIFY(graph_named("norm=post (n=3)") &&
                graph_named("norm=post (n=3)")->data()->at(0)->key == 6e13);
    QCOMPARE(plot->xAxis->label(), QString("training compute (FLOPs)"));

    // Back to one curve per run.
    view.setGroupBy("");
    view.replot();
    QTRY_VERIFY(!graph_named("norm=post (n=3)"));
  }

  void viewRedrawsWithPointsWrittenAfterItStarted() {
    const QString db = dir_.filePath("view.db");
    auto writer = Store::open(db.toStdString());
    NewRun r;
    r.name = "live";
    const int64_t run = writer.create_run(r);
    writer.mark_running(run, "host", "cpu");
    writer.write_metrics(run, loss(10, 30));

    QString error;
    auto session = StoreSession::open(db, &error);
    QVERIFY2(session, qPrintable(error));
    DashboardView view;
    view.resize(900, 600);
    view.setSession(session.get());
    view.setRuns(session->store.list_runs());
    QVERIFY(view.shownMetrics().contains("train_loss"));
    QTRY_COMPARE(view.cache().series(run, "train_loss").size(), size_t(3));
    CurvePlot* chart = view.chart("train_loss");
    QVERIFY(chart);
    QVERIFY(chart->graphCount() >= 1);

    auto worker = Store::open(db.toStdString());
    worker.write_metrics(run, loss(40, 100));
    QCOMPARE(pollAndWait(view), 7);
    QCOMPARE(view.cache().last_step(run, "train_loss"), int64_t(100));
    // The drawn curve reaches the new last step (drawn raw and smoothed; either ends there).
    QCPGraph* last = chart->plot()->graph(chart->graphCount() - 1);
    QCOMPARE(last->data()->at(last->data()->size() - 1)->key, 100.0);

    // A metric the run logs only later (its first validation) gets a chart within 5 polls.
    QVERIFY(!view.chart("valid_ppl"));
    worker.write_metrics(run, {{100, "valid_ppl", 12.5, 0.0}});
    for (int i = 0; i < 5; ++i) pollAndWait(view);
    QVERIFY(view.chart("valid_ppl"));
    QTRY_COMPARE(view.cache().series(run, "valid_ppl").size(), size_t(1));
    QCOMPARE(view.cache().series(run, "train_loss").size(), size_t(10));  // kept, not re-read
  }

  // The read runs in the poller's own thread with its own connection: request() returns at
  // once and the points arrive later by signal.
  void pollerReadsInItsOwnThread() {
    const QString db = dir_.filePath("thread.db");
    auto writer = Store::open(db.toStdString());
    NewRun r;
    r.name = "live";
    const int64_t run = writer.create_run(r);
    writer.write_metrics(run, loss(10, 40));

    MetricPoller poller;
    poller.setDatabase(db);
    poller.setTails([&] { return std::vector<CurveTail>{{{run, "train_loss"}, 20, true}}; });
    QSignalSpy spy(&poller, &MetricPoller::pointsRead);
    poller.request();
    QVERIFY(poller.busy());
    poller.request();  // while busy: one more read after this one
    QVERIFY(spy.wait(5000));
    auto update = spy.at(0).at(0).value<std::shared_ptr<const MetricUpdate>>();
    QVERIFY(update);
    const auto& fresh = update->fresh.at({run, "train_loss"});
    QCOMPARE(fresh.size(), size_t(2));  // steps 30 and 40: only the points after step 20
    QCOMPARE(fresh.front().step, int64_t(30));
    QCOMPARE(update->stored_end.at({run, "train_loss"}), int64_t(40));
    QTRY_COMPARE(spy.count(), 2);  // the queued second read came too
    QTRY_VERIFY(!poller.busy());
  }
};

FATHOM_GUI_TEST(DashboardPollTest);

}  // namespace test_dashboard_poll

#include "test_dashboard_poll.moc"
