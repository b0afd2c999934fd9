// Issue 36.3-36.7: the dashboard's one shared legend, the hover read-out that keeps the
// layout, unsmoothed evaluation metrics, and a dashboard that keeps the runs it followed.
//  - each chart draws no legend of its own; the shared legend lists every run with the look
//    the charts give it, and a run keeps that look (its id's style) whichever runs are shown;
//  - unticking a run removes its curve from every chart; hovering it draws it bold and the
//    others faint;
//  - valid_ppl is drawn through its points (an EMA of 3 values lagged far behind the last);
//  - with nothing selected, a run that finishes stays on the dashboard, and a store with no
//    running run shows the latest sweep instead of nothing;
//  - the legend says what a running run is doing: progress and an ETA from its rate now.
#include <qcustomplot.h>
#include <QAction>
#include <QApplication>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <set>

#include "db/store.h"
#include "gui/curve_plot.h"
#include "gui/dashboard_view.h"
#include "gui/run_state_text.h"
#include "gui/shared_legend.h"
#include "gui/store_session.h"
#include "plot/style.h"
#include "tests/gui/gui_test_registry.h"

using fathom::db::MetricRow;
using fathom::db::NewRun;
using fathom::db::Store;
using namespace fathom::gui;

namespace test_shared_legend {

QCPGraph* graph_named(QCustomPlot* plot, const QString& name) {
  for (int i = 0; i < plot->graphCount(); ++i)
    if (plot->graph(i)->name() == name) return plot->graph(i);
  return nullptr;
}

QStringList legend_labels(const SharedLegend& legend) {
  QStringList out;
  for (int i = 0; i < legend.count(); ++i) out << legend.item(i)->data(Qt::UserRole).toString();
  return out;
}

class SharedLegendTest : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  QString db_;
  std::vector<int64_t> ids_;

 private slots:
  void initTestCase() {
    db_ = dir_.filePath("legend.db");
    auto store = Store::open(db_.toStdString());
    for (const char* lr : {"0.001", "0.002", "0.004"}) {
      NewRun r;
      r.name = std::string("s/lr=") + lr;
      r.sweep = "s";
      const int64_t id = store.create_run(r);
      ids_.push_back(id);
      std::vector<MetricRow> rows;
      for (int s = 10; s <= 200; s += 10) rows.emplace_back(s, "train_loss", 5.0 - s / 100.0, 0.0);
      // Three validations falling steeply: 20, 15, 10.9 (the issue's sparse metric).
      rows.emplace_back(50, "valid_ppl", 20.0, 0.0);
      rows.emplace_back(100, "valid_ppl", 15.0, 0.0);
      rows.emplace_back(150, "valid_ppl", 10.9, 0.0);
      store.write_metrics(id, rows);
      store.finish_run(id, "finished");
    }
  }

  void oneLegendHidesAndHighlightsInEveryChart() {
    QString error;
    auto session = StoreSession::open(db_, &error);
    QVERIFY2(session, qPrintable(error));
    DashboardView view;
    view.resize(1000, 700);
    view.setSmoothing(0.6);
    view.setSession(session.get());
    view.setRuns(session->store.list_runs());
    QCustomPlot* loss = view.chart("train_loss")->plot();
    QCustomPlot* valid = view.chart("valid_ppl")->plot();
    QTRY_VERIFY(graph_named(loss, "#3 lr=0.004") && graph_named(valid, "#3 lr=0.004"));
    QVERIFY(!loss->legend->visible());  // no legend over the data

    SharedLegend* legend = view.legend();
    QCOMPARE(legend->count(), 3);
    const QStringList labels = legend_labels(*legend);
    QVERIFY2(labels.contains("#2 lr=0.002"), qPrintable(labels.join(", ")));
    // A run's look is its id's style, the same as the chart draws.
    QCOMPARE(graph_named(loss, "#2 lr=0.002")->pen().color(), fathom::plot::series_colour(2));

    // Untick run 2: gone from both charts, the others stay with their colours.
    QSignalSpy changed(legend, &SharedLegend::visibilityChanged);
    legend->setHidden("#2 lr=0.002", true);
    QCOMPARE(changed.count(), 1);
    QVERIFY(graph_named(loss, "#2 lr=0.002") == nullptr);
    QVERIFY(graph_named(valid, "#2 lr=0.002") == nullptr);
    QCOMPARE(graph_named(loss, "#3 lr=0.004")->pen().color(), fathom::plot::series_colour(3));
    legend->setHidden("#2 lr=0.002", false);
    QVERIFY(graph_named(loss, "#2 lr=0.002") != nullptr);

    // Hover run 1's entry: bold in every chart, the others faint.
    const QPoint entry =
        legend->visualItemRect(legend->item(labels.indexOf("#1 lr=0.001"))).center();
    QTest::mouseMove(legend->viewport(), entry);
    QListWidgetItem* item = legend->itemAt(entry);
    emit legend->itemEntered(item);  // offscreen platforms send no enter events for a move
    QCOMPARE(legend->hoveredLabel(), QStringLiteral("#1 lr=0.001"));
    for (QCustomPlot* plot : {loss, valid}) {
      const QPen mine = graph_named(plot, "#1 lr=0.001")->pen();
      const QPen other = graph_named(plot, "#3 lr=0.004")->pen();
      QVERIFY2(mine.widthF() >= 3, qPrintable(QString::number(mine.widthF())));
      QCOMPARE(mine.color().alpha(), 255);
      QVERIFY(other.color().alpha() < 100);
    }
    QEvent leave(QEvent::Leave);
    QCoreApplication::sendEvent(legend, &leave);
    QVERIFY(graph_named(loss, "#3 lr=0.004")->pen().color().alpha() == 255);
  }

  // A chart's context menu "Enlarge" lets it fill the area; again, and every chart is back.
  void aChartCanFillTheArea() {
    QString error;
    auto session = StoreSession::open(db_, &error);
    QVERIFY2(session, qPrintable(error));
    DashboardView view;
    view.setSession(session.get());
    view.setRuns(session->store.list_runs());
    CurvePlot* valid = view.chart("valid_ppl");
    CurvePlot* loss = view.chart("train_loss");
    QVERIFY(valid && loss);
    QAction* enlarge = valid->plot()->actions().value(0);
    QVERIFY(enlarge);
    enlarge->trigger();
    QCOMPARE(view.enlargedChart(), std::string("valid_ppl"));
    QVERIFY(loss->isHidden());
    QVERIFY(!valid->isHidden());
    QVERIFY(enlarge->text().contains("Back"));
    enlarge->trigger();
    QVERIFY(view.enlargedChart().empty());
    QVERIFY(!loss->isHidden());
  }

  void evaluationMetricsAreDrawnThroughTheirPoints() {
    QString error;
    auto session = StoreSession::open(db_, &error);
    QVERIFY2(session, qPrintable(error));
    DashboardView view;
    view.setSmoothing(0.6);
    view.setSession(session.get());
    view.setRuns(session->store.list_runs());
    QCustomPlot* valid = view.chart("valid_ppl")->plot();
    QTRY_VERIFY(graph_named(valid, "#1 lr=0.001"));
    const auto data = graph_named(valid, "#1 lr=0.001")->data();
    QCOMPARE(data->size(), 3);
    QCOMPARE((data->constEnd() - 1)->value, 10.9);  // not the EMA's ~13
    // The training loss is still smoothed: its last drawn value is above the last raw one
    // (a falling curve's EMA lags).
    QCustomPlot* loss = view.chart("train_loss")->plot();
    const auto smoothed = graph_named(loss, "#1 lr=0.001")->data();
    QVERIFY((smoothed->constEnd() - 1)->value > 5.0 - 200 / 100.0 + 0.01);
  }

  void theReadoutKeepsTheChartsWidthAndGoesWhenTheMouseLeaves() {
    CurvePlot chart;
    chart.resize(300, 250);
    fathom::plot::CurveFigure f;
    fathom::plot::Curve c;
    c.label = std::string(300, 'x');  // a read-out far wider than the chart
    c.step = {1, 2, 3};
    c.value = {1, 2, 3};
    f.curves.push_back(c);
    chart.setFigure(f);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    QCustomPlot* plot = chart.plot();
    plot->replot();
    const QPointF at(plot->xAxis->coordToPixel(2), plot->yAxis->coordToPixel(2));
    QMouseEvent move(QEvent::MouseMove, at, plot->mapToGlobal(at), Qt::NoButton, Qt::NoButton,
                     Qt::NoModifier);
    QCoreApplication::sendEvent(plot, &move);
    QVERIFY(chart.readoutText().contains("xxx"));
    QCOMPARE(chart.width(), 300);
    QVERIFY(chart.minimumSizeHint().width() < 400);
    QEvent leave(QEvent::Leave);
    QCoreApplication::sendEvent(plot, &leave);
    QVERIFY(chart.readoutText().isEmpty());
  }

  void followedRunsStayAndTheLatestSweepShowsWhenNothingRuns() {
    QTemporaryDir dir;
    const QString db = dir.filePath("follow.db");
    auto store = Store::open(db.toStdString());
    auto make = [&](const std::string& name, const std::string& sweep) {
      NewRun r;
      r.name = name;
      r.sweep = sweep;
      const int64_t id = store.create_run(r);
      store.write_metrics(id, {{10, "train_loss", 3.0, 0.0}});
      return id;
    };
    const int64_t old_a = make("old/a", "old"), old_b = make("old/b", "old");
    store.finish_run(old_a, "finished");
    store.finish_run(old_b, "finished");
    const int64_t new_a = make("new/a", "new"), new_b = make("new/b", "new");
    QString error;
    auto session = StoreSession::open(db, &error);
    QVERIFY2(session, qPrintable(error));
    DashboardView view;
    view.setSession(session.get());
    auto shown = [&] {
      QStringList out;
      for (const auto& label : legend_labels(*view.legend())) out << label.section(' ', 0, 0);
      return out;
    };
    // Nothing running, nothing followed: the latest sweep ("new", both queued).
    view.showRuns(session->store.list_runs(), {});
    const QString a = QStringLiteral("#%1").arg(new_a), b = QStringLiteral("#%1").arg(new_b);
    QCOMPARE(shown(), (QStringList{a, b}));
    // new/a trains: followed alone; when it finishes it stays; new/b starts: both.
    store.mark_running(new_a, "host", "cpu");
    view.showRuns(session->store.list_runs(), {});
    QCOMPARE(shown(), QStringList{a});
    store.finish_run(new_a, "finished");
    view.showRuns(session->store.list_runs(), {});
    QCOMPARE(shown(), QStringList{a});
    store.mark_running(new_b, "host", "cpu");
    view.showRuns(session->store.list_runs(), {});
    QCOMPARE(shown(), (QStringList{a, b}));

    // A sweep chosen while it runs: its queued runs (no curve yet) come after the ones that
    // train or ended, whatever their ids.
    const int64_t new_c = make("new/c", "new");
    store.finish_run(new_b, "finished");
    store.mark_running(new_c, "host", "cpu");
    const int64_t new_d = make("new/d", "new");
    auto newest_first = session->store.list_runs("new");  // as the Runs tab sorts by id, down
    std::reverse(newest_first.begin(), newest_first.end());
    view.setRuns(newest_first);
    const QString c = QStringLiteral("#%1").arg(new_c), d = QStringLiteral("#%1").arg(new_d);
    QStringList order = shown();
    QCOMPARE(order.size(), 4);
    QCOMPARE(order.last(), d);  // the one queued
    order.removeLast();
    QVERIFY2(order.contains(a) && order.contains(b) && order.contains(c),
             qPrintable(order.join(", ")));
  }

  // Issue 58 item 4: a sweep started from the app replaces, on the dashboard, the runs it
  // followed before (one that ran earlier in the session): the new sweep's runs show at once,
  // queued, and any other run that trains joins them.
  void aSweepStartedFromTheAppIsFollowed() {
    QTemporaryDir dir;
    const QString db = dir.filePath("started.db");
    auto store = Store::open(db.toStdString());
    auto make = [&](const std::string& name, const std::string& sweep) {
      NewRun r;
      r.name = name;
      r.sweep = sweep;
      return store.create_run(r);
    };
    const int64_t old = make("old/a", "old");
    store.mark_running(old, "host", "cpu");
    QString error;
    auto session = StoreSession::open(db, &error);
    QVERIFY2(session, qPrintable(error));
    DashboardView view;
    view.setSession(session.get());
    auto shown = [&] {
      QStringList out;
      for (const auto& label : legend_labels(*view.legend())) out << label.section(' ', 0, 0);
      return out;
    };
    const QString o = QStringLiteral("#%1").arg(old);
    view.showRuns(session->store.list_runs(), {});
    QCOMPARE(shown(), QStringList{o});
    store.finish_run(old, "finished");
    view.followSweep("new");
    const int64_t a = make("new/a", "new"), b = make("new/b", "new");
    view.showRuns(session->store.list_runs(), {});
    const QString sa = QStringLiteral("#%1").arg(a), sb = QStringLiteral("#%1").arg(b);
    QCOMPARE(shown(), (QStringList{sa, sb}));
    const int64_t other = make("single", "");
    store.mark_running(other, "host", "cpu");
    view.showRuns(session->store.list_runs(), {});
    // The one training first, the queued after it (the legend's order).
    QCOMPARE(shown(), (QStringList{QStringLiteral("#%1").arg(other), sa, sb}));
  }

  void theStateOfARunInWords() {
    fathom::db::RunRecord run;
    run.status = "running";
    run.config_json = R"({"train":{"max_updates":300}})";
    run.updates = 120;
    run.started_at = 1000;
    // 2 s an update now, 180 left: 360 s -- whenever it first started.
    QCOMPARE(run_state_text(run, 2.0), QStringLiteral("running 120/300 (40%), ETA 6:00"));
    // No rate yet (before its second logged loss): no ETA rather than a guess.
    QCOMPARE(run_state_text(run), QStringLiteral("running 120/300 (40%)"));
    run.config_json = "{}";
    QCOMPARE(run_state_text(run, 2.0), QStringLiteral("running, update 120"));
    run.status = "finished";
    QCOMPARE(run_state_text(run, 2.0), QStringLiteral("finished"));
    run.status = "diverged";
    run.diverged_step = 40;
    QCOMPARE(run_state_text(run, 2.0), QStringLiteral("diverged at 40"));
    QCOMPARE(duration_text(3723), QStringLiteral("1:02:03"));
    QCOMPARE(duration_text(42), QStringLiteral("0:42"));
  }

  // Issue 58 item 6: in a narrow legend a long label scrolled the list sideways and hid a
  // running run's ETA behind the scroll bar. Now each line is cut to the width, the state
  // keeps its ETA, and the whole label is the tooltip; a wider legend shows more again.
  void aNarrowLegendKeepsTheEtaInView() {
    SharedLegend legend;
    legend.resize(230, 200);
    legend.show();
    QVERIFY(QTest::qWaitForWindowExposed(&legend));
    const QString label = "#228 lr=0.0806349,decoder_layers=24,init=xavier,norm=post";
    legend.setEntries({{label, 3, "running 120/300 (40%), ETA 2:10", ""}, {"#1 a", 1, "", ""}});
    QApplication::processEvents();
    QVERIFY(legend.horizontalScrollBar()->maximum() == 0 ||
            !legend.horizontalScrollBar()->isVisible());
    const QStringList lines = legend.item(0)->text().split('\n');
    QCOMPARE(lines.size(), 2);
    QVERIFY2(lines[1].endsWith("ETA 2:10"), qPrintable(lines[1]));
    QVERIFY2(lines[0].startsWith("#228 lr=") && lines[0] != label, qPrintable(lines[0]));
    const QFontMetrics metrics(legend.font());
    for (const QString& line : lines)
      QVERIFY2(
          metrics.horizontalAdvance(line) < legend.viewport()->width() - legend.iconSize().width(),
          qPrintable(line));
    QVERIFY(legend.item(0)->toolTip().startsWith(label));
    QCOMPARE(legend.item(1)->text(), QStringLiteral("#1 a"));
    legend.resize(900, 200);  // room for all of it
    QApplication::processEvents();
    QCOMPARE(legend.item(0)->text(), label + "\nrunning 120/300 (40%), ETA 2:10");
  }

  // The entry's marker is filled in the curve's colour with a solid outline: drawn with the
  // dashed line's pen and no fill it read as "2" or ":" (issue 58 item 6). Every pixel of the
  // marker's inside, above and below the line, is the colour.
  void legendMarkersAreFilled() {
    SharedLegend legend;
    for (int style : {1, 2}) {  // a square and a triangle: shapes with an inside
      legend.setEntries({{"run", style, "", ""}});
      const int h = legend.iconSize().height();
      const QImage image = legend.item(0)->icon().pixmap(QSize(2 * h, h)).toImage();
      const QColor colour = fathom::plot::series_colour(style);
      int filled = 0;
      for (int dy : {-1, 1})  // just off the line's row, inside the marker
        filled += image.pixelColor(h, h / 2 + dy).alpha() > 200 &&
                  std::abs(image.pixelColor(h, h / 2 + dy).hue() - colour.hue()) < 20;
      QVERIFY2(filled == 2, qPrintable(QStringLiteral("style %1").arg(style)));
    }
  }

  // A running run's ETA comes with each poll, its rate read in the poller's thread with the
  // points (not on the UI thread at every redraw), and follows the rate even when its
  // training loss is not charted: 1.5 s an update, 180 to go, 4:30; then 0.5 s, 1:30.
  void aRunningRunsEtaFollowsItsRateWithoutItsCurveShown() {
    QTemporaryDir dir;
    const QString db = dir.filePath("eta.db");
    auto writer = Store::open(db.toStdString());
    NewRun r;
    r.name = "live";
    r.config_json = R"({"train":{"max_updates":300}})";
    const int64_t id = writer.create_run(r);
    writer.mark_running(id, "host", "cpu");
    writer.heartbeat(id, 120);
    std::vector<MetricRow> rows;
    for (int s = 70; s <= 120; s += 10) rows.emplace_back(s, "train_loss", 3.0, 1000 + 1.5 * s);
    rows.emplace_back(100, "valid_ppl", 20.0, 1150.0);
    writer.write_metrics(id, rows);
    QString error;
    auto session = StoreSession::open(db, &error);
    QVERIFY2(session, qPrintable(error));
    DashboardView view;
    view.resize(900, 600);
    view.setSession(session.get());
    view.setRuns(session->store.list_runs());
    SharedLegend* legend = view.legend();
    QTRY_VERIFY(legend->count() == 1 && legend->item(0)->text().endsWith("ETA 4:30"));
    QListWidget* metrics = nullptr;
    for (auto* list : view.findChildren<QListWidget*>())
      if (list != legend && !list->findItems("train_loss", Qt::MatchExactly).isEmpty())
        metrics = list;
    QVERIFY(metrics);
    metrics->findItems("train_loss", Qt::MatchExactly).front()->setCheckState(Qt::Unchecked);
    QTRY_VERIFY(!view.chart("train_loss") && view.chart("valid_ppl") && !view.pollPending());
    QApplication::processEvents();  // the charts' reads merged: the next poll brings no point
    rows.clear();
    for (int s = 130; s <= 170; s += 10)
      rows.emplace_back(s, "train_loss", 3.0, 1180 + 0.5 * (s - 120));
    writer.write_metrics(id, rows);
    view.poll();
    QTRY_VERIFY2(legend->item(0)->text().endsWith("ETA 1:30"), qPrintable(legend->item(0)->text()));
  }

  // Past 140 entries no pair of colour and marker is one entry's own (plot/style.h): the
  // icons show the line alone, as the charts then draw it; at 140 and fewer, the marker.
  void iconsHaveNoMarkersPastAsManyEntriesAsLooks() {
    SharedLegend legend;
    auto entries = [](int n) {
      std::vector<SharedLegend::Entry> out;
      for (int i = 0; i < n; ++i) out.push_back({QStringLiteral("#%1").arg(i), i, "", ""});
      return out;
    };
    // Entry 1 (a square): its pixels two above and below the line's row, inside the marker.
    auto marker_pixels = [&] {
      const int h = legend.iconSize().height();
      const QImage image = legend.item(1)->icon().pixmap(QSize(2 * h, h)).toImage();
      int painted = 0;
      for (int dy : {-2, 2}) painted += image.pixelColor(h, h / 2 + dy).alpha() > 200;
      return painted;
    };
    legend.setEntries(entries(140));
    QCOMPARE(marker_pixels(), 2);
    legend.setEntries(entries(141));
    QCOMPARE(marker_pixels(), 0);
    legend.setEntries(entries(3));
    QCOMPARE(marker_pixels(), 2);
  }

  // The dashboard's charts follow their legend: 141 runs, or 141 groups, draw no markers --
  // also with one unticked, 140 lines left, while the legend lists 141 entries --, and 3
  // runs or groups draw theirs.
  void chartsOfMoreRunsThanLooksDrawNoMarkers() {
    QTemporaryDir dir;
    const QString db = dir.filePath("many.db");
    {
      auto store = Store::open(db.toStdString());
      for (int i = 0; i < 141; ++i) {
        NewRun r;
        r.name = "run" + std::to_string(i);
        r.sweep = "many";
        const int64_t id = store.create_run(r);
        store.set_tag(id, "axis.model.layers", std::to_string(i));
        store.set_tag(id, "axis.train.seed", "1");
        std::vector<MetricRow> rows;
        for (int s = 10; s <= 120; s += 10) rows.emplace_back(s, "train_loss", 5.0 - s / 100.0, 0);
        store.write_metrics(id, rows);
        store.finish_run(id, "finished");
      }
    }
    QString error;
    auto session = StoreSession::open(db, &error);
    QVERIFY2(session, qPrintable(error));
    DashboardView view;
    view.resize(1000, 700);
    view.setSmoothing(0);
    view.setSession(session.get());
    const auto runs = session->store.list_runs();
    view.setRuns(runs);
    // The shapes on the lines named as legend entries, and how many such lines there are
    // (a new choice of runs makes the charts anew).
    auto shapes = [&](int* lines) {
      std::set<int> out;
      *lines = 0;
      CurvePlot* chart = view.chart("train_loss");
      for (int g = 0; chart && g < chart->plot()->graphCount(); ++g)
        if (chart->plot()->graph(g)->name().startsWith('#') ||
            chart->plot()->graph(g)->name().startsWith("layers="))
          ++*lines, out.insert(chart->plot()->graph(g)->scatterStyle().shape());
      return out;
    };
    const std::set<int> none{QCPScatterStyle::ssNone};
    int lines = 0;
    QTRY_VERIFY((shapes(&lines), lines == 141));
    QCOMPARE(shapes(&lines), none);
    view.legend()->setHidden(legend_labels(*view.legend()).front(), true);
    QCOMPARE(view.legend()->count(), 141);
    QCOMPARE(shapes(&lines), none);
    QCOMPARE(lines, 140);
    view.legend()->setHidden(legend_labels(*view.legend()).front(), false);

    view.setGroupBy("axes");  // a group a run: 141 groups
    QTRY_VERIFY((shapes(&lines), lines == 141));
    QCOMPARE(shapes(&lines), none);
    QCOMPARE(view.legend()->count(), 141);

    view.setGroupBy("");
    view.setRuns({runs.begin(), runs.begin() + 3});
    QTRY_VERIFY((shapes(&lines), lines == 3));
    QVERIFY(shapes(&lines).count(QCPScatterStyle::ssNone) == 0);

    // Grouped, marked; then all 141 groups with one unticked: 140 lines, the legend's count.
    view.setGroupBy("axes");
    QTRY_VERIFY((shapes(&lines), lines == 3));
    QVERIFY(shapes(&lines).count(QCPScatterStyle::ssNone) == 0);
    view.legend()->setHidden("layers=0 (n=1)", true);
    view.setRuns(runs);
    QTRY_VERIFY((shapes(&lines), lines == 140));
    QCOMPARE(shapes(&lines), none);
    QCOMPARE(view.legend()->count(), 141);
  }
};

FATHOM_GUI_TEST(SharedLegendTest);

}  // namespace test_shared_legend

#include "test_shared_legend.moc"
