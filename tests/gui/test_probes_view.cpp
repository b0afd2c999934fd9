// The Probes tab (gui/probes_view.h): two runs' probe points written by hand, drawn as
// heatmaps with their heads reduced (max worked out below), on one colour range, the probe
// chooser the union of the runs' probes, the hover read-out of a known cell, lines, a live
// run's new point, and the hint shown without a selection.
#include <qcustomplot.h>
#include <QApplication>
#include <QFileInfo>
#include <QMouseEvent>
#include <QTemporaryDir>
#include <QTest>

#include "db/lease.h"
#include "db/store.h"
#include "gui/export_targets.h"
#include "gui/probes_view.h"
#include "gui/store_session.h"
#include "tests/gui/gui_test_registry.h"

using fathom::db::NewRun;
using fathom::db::ProbeRow;
using fathom::db::Store;
using fathom::gui::ProbesView;
using fathom::plot::HeadReduction;

namespace test_probes_view {

const std::vector<std::string> kHeads = {"enc.0.self_attn.h0", "enc.0.self_attn.h1",
                                         "enc.1.self_attn.h0", "enc.1.self_attn.h1"};

ProbeRow row(int64_t step, const std::string& probe, std::vector<float> values,
             std::vector<std::string> positions = kHeads) {
  return ProbeRow{step, probe, std::move(positions), std::move(values), 1000.0 + step};
}

// Run 1 "post" and run 2 "pre" of sweep s, both with attn.max_logit at updates 10 and 20;
// run 1 also has stream.rms, run 2 update.ratio. Max over heads (rows enc.0, enc.1):
//   run 1: update 10 {1, 3 | 2, 0.5} -> 3, 2;   update 20 {4, 2 | 6, 7} -> 4, 7
//   run 2: update 10 {.25, .5 | .75, 1} -> .5, 1; update 20 {200, 100 | 50, 25} -> 200, 50
// One colour range over both: 0.5 to 200, 400x: a log scale.
struct ProbeStore {
  QTemporaryDir dir;
  QString path = dir.filePath("probes.db");
  Store store = Store::open(path.toStdString());
  fathom::db::Lease post, pre;

  ProbeStore() {
    post = start("post");
    pre = start("pre");
    store.write_probes(
        post, {row(10, "attn.max_logit", {1, 3, 2, 0.5f}), row(20, "attn.max_logit", {4, 2, 6, 7}),
               row(10, "stream.rms", {0.5f, 1}, {"enc.0.ffn", "dec.0.ffn"})});
    store.write_probes(pre, {row(10, "attn.max_logit", {0.25f, 0.5f, 0.75f, 1}),
                             row(20, "attn.max_logit", {200, 100, 50, 25}),
                             row(10, "update.ratio", {0.01f}, {"encoder.layer0_ffn.fc1.weight"})});
  }
  fathom::db::Lease start(const std::string& name) {
    NewRun r;
    r.name = "s/" + name;
    r.sweep = "s";
    return store.mark_running(store.create_run(r), "host", "cpu");
  }
};

class ProbesViewTest : public QObject {
  Q_OBJECT
 private slots:
  void twoRunsAreHeatmapsOnOneColourRangeWithAHoverReadOut() {
    ProbeStore s;
    QString error;
    auto session = fathom::gui::StoreSession::open(s.path, &error);
    QVERIFY2(session, qPrintable(error));
    ProbesView view;
    view.resize(1200, 700);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setStore(session.get(), s.path);
    const auto runs = session->store.list_runs();
    view.showRuns(runs, runs);
    QTRY_COMPARE(view.probeChoices(),
                 (QStringList{"attn.max_logit", "stream.rms", "update.ratio"}));
    QVERIFY(view.choose("attn.max_logit", HeadReduction::Max, false));
    QTRY_COMPARE(view.heatmaps().size(), size_t(2));
    QTRY_VERIFY(!view.reading());

    const auto& post = view.heatmaps()[0];
    const auto& pre = view.heatmaps()[1];
    QCOMPARE(post.title, std::string("run 1: post"));
    QCOMPARE(post.row_labels, (std::vector<std::string>{"enc.0.self_attn", "enc.1.self_attn"}));
    QCOMPARE(post.col_labels, (std::vector<std::string>{"10", "20"}));
    QCOMPARE(post.values, (std::vector<std::vector<double>>{{3, 4}, {2, 7}}));
    QCOMPARE(pre.values, (std::vector<std::vector<double>>{{0.5, 200}, {1, 50}}));
    // One colour range, and the same on both drawn colour maps.
    QVERIFY(post.log_colour && pre.log_colour);
    QCOMPARE(*post.vmin, 0.5);
    QCOMPARE(*post.vmax, 200.0);
    QCOMPARE(*pre.vmin, 0.5);
    QCOMPARE(*pre.vmax, 200.0);
    QCOMPARE(view.plots().size(), size_t(2));
    for (QCustomPlot* plot : view.plots()) {
      auto* map = qobject_cast<QCPColorMap*>(plot->plottable(0));
      QVERIFY(map);
      QCOMPARE(map->dataRange().lower, 0.5);
      QCOMPARE(map->dataRange().upper, 200.0);
    }

    // The hover read-out of run 1's enc.1 self-attention at update 20: 7, head 1's.
    const QString expected = QStringLiteral(
        "run 1: post  |  encoder, layer 1, self_attn, head 1 (largest of 2)  |  update 20  |  "
        "attn.max_logit = 7");
    QCOMPARE(view.cellText(0, 1, 1), expected);
    QCustomPlot* plot = view.plots()[0];
    // The new plots laid out at their size in the grid first: the cell's pixel depends on it.
    QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    QApplication::processEvents();
    plot->replot();
    const QPointF pixel(plot->xAxis->coordToPixel(1), plot->yAxis->coordToPixel(1));
    QMouseEvent move(QEvent::MouseMove, pixel, plot->mapToGlobal(pixel), Qt::NoButton, Qt::NoButton,
                     Qt::NoModifier);
    const QRect before = plot->geometry();
    QCoreApplication::sendEvent(plot, &move);
    QCOMPARE(view.hoverText(), expected);
    QApplication::processEvents();
    QCOMPARE(plot->geometry(), before);  // a long read-out moves nothing
    QEvent leave(QEvent::Leave);
    QCoreApplication::sendEvent(plot, &leave);
    QVERIFY(view.hoverText().isEmpty());

    // Every head a row; the mean of the heads.
    QVERIFY(view.choose("attn.max_logit", HeadReduction::All, false));
    QCOMPARE(view.heatmaps()[0].values,
             (std::vector<std::vector<double>>{{1, 4}, {3, 2}, {2, 6}, {0.5, 7}}));
    QCOMPARE(view.cellText(1, 0, 1),
             QStringLiteral("run 2: pre  |  encoder, layer 0, self_attn, head 0  |  update 20  |  "
                            "attn.max_logit = 200"));
    QVERIFY(view.choose("attn.max_logit", HeadReduction::Mean, false));
    QCOMPARE(view.heatmaps()[0].values, (std::vector<std::vector<double>>{{2, 3}, {1.25, 6.5}}));
    QVERIFY(view.cellText(0, 0, 0).contains("mean of 2 heads"));

    // Lines: a line per sub-layer; the read-out of a point.
    QVERIFY(view.choose("attn.max_logit", HeadReduction::Max, true));
    QCOMPARE(view.lineFigures().size(), size_t(2));
    QCOMPARE(view.lineFigures()[1].series[1].y, (std::vector<double>{1, 50}));
    QVERIFY(view.cellText(1, 1, 1).endsWith("update 20  |  attn.max_logit = 50"));
    // One legend: both panels draw the same sub-layers, so only the first lists them.
    QCOMPARE(view.plots().size(), size_t(2));
    QVERIFY(view.plots()[0]->legend->visible() && view.plots()[0]->legend->itemCount() == 2);
    QVERIFY(!view.plots()[1]->legend->visible() || view.plots()[1]->legend->itemCount() == 0);

    // A probe only one run has: one heatmap, the other run named as lacking it.
    QVERIFY(view.choose("update.ratio", HeadReduction::Max, false));
    QTRY_COMPARE(view.heatmaps().size(), size_t(1));
    QCOMPARE(view.heatmaps()[0].title, std::string("run 2: pre"));
    QVERIFY(view.noteText().contains("Without update.ratio: run 1"));
    QTRY_VERIFY(!view.reading());
    QCOMPARE(view.cellText(0, 0, 0),
             QStringLiteral("run 2: pre  |  encoder, layer 0, ffn, fc1.weight  |  update 10  |  "
                            "update.ratio = 0.01"));

    // A live run's new point shows at the next poll.
    QVERIFY(view.choose("attn.max_logit", HeadReduction::Max, false));
    QTRY_VERIFY(!view.reading());
    s.store.write_probes(s.post, {row(30, "attn.max_logit", {9, 1, 1, 1})});
    view.poll();
    QTRY_COMPARE(view.heatmaps()[0].col_labels.size(), size_t(3));
    QCOMPARE(view.heatmaps()[0].values[0][2], 9.0);
    QCOMPARE(view.heatmaps()[1].col_labels.size(), size_t(2));  // run 2 has no update 30
  }

  // Four runs with a sweep's long names at 1100x700 (four plots to a row): each title keeps
  // the run's id at its start and is elided at the right to its plot's width -- centred, it
  // was cut at both ends.
  void longTitlesAreElidedAtTheRightToTheirPlot() {
    QTemporaryDir dir;
    const QString path = dir.filePath("long.db");
    Store store = Store::open(path.toStdString());
    for (int i = 1; i <= 4; ++i) {
      NewRun r;
      r.name = "screens/norm=post,lr=0.000" + std::to_string(i) + ",seed=1,warmup=50,layers=18";
      r.sweep = "screens";
      const auto lease = store.mark_running(store.create_run(r), "host", "cpu");
      store.write_probes(lease, {row(10, "attn.max_logit", {1, 2, 3, 4})});
    }
    QString error;
    auto session = fathom::gui::StoreSession::open(path, &error);
    QVERIFY2(session, qPrintable(error));
    ProbesView view;
    view.resize(1100, 700);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setStore(session.get(), path);
    const auto runs = session->store.list_runs();
    view.showRuns(runs, runs);
    QTRY_VERIFY(view.choose("attn.max_logit", HeadReduction::Max, false));
    QTRY_COMPARE(view.plots().size(), size_t(4));
    QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    QApplication::processEvents();
    for (size_t i = 0; i < 4; ++i) {
      QCustomPlot* plot = view.plots()[i];
      auto* title = qobject_cast<QCPTextElement*>(plot->plotLayout()->element(0, 0));
      QVERIFY(title);
      // Elided once the plot's resize has been handled (queued events: a loaded machine may
      // need more than one pass of the event loop).
      QTRY_VERIFY2(title->text().endsWith(QChar(0x2026)), qPrintable(title->text()));
      const QString text = title->text();
      QVERIFY2(text.startsWith(QStringLiteral("run %1: ").arg(i + 1)), qPrintable(text));
      const QPixmap canvas(1, 1);  // as it is painted
      QVERIFY(QFontMetrics(title->font(), &canvas).horizontalAdvance(text) <= plot->width());
    }
  }

  void withoutASelectionItSaysWhichRunsHaveProbesAndHowToRecordThem() {
    ProbeStore s;
    NewRun plain;
    plain.name = "plain";
    s.store.create_run(plain);
    QString error;
    auto session = fathom::gui::StoreSession::open(s.path, &error);
    QVERIFY2(session, qPrintable(error));
    ProbesView view;
    view.setStore(session.get(), s.path);
    view.showRuns(session->store.list_runs(), {});
    QTRY_VERIFY2(view.noteText().contains("Runs with probes: 1, 2."), qPrintable(view.noteText()));
    QVERIFY(view.noteText().contains("train.probe_every"));
    QVERIFY(view.plots().empty());
    QVERIFY(view.probeChoices().isEmpty());
  }

  // Issue 58 item 7: File > Export... on the tab writes every selected run's plot, a file each
  // named by its run (it wrote the first run's only), heatmaps and lines alike.
  void exportWritesEverySelectedRun() {
    ProbeStore s;
    QString error;
    auto session = fathom::gui::StoreSession::open(s.path, &error);
    QVERIFY2(session, qPrintable(error));
    ProbesView view;
    view.resize(1200, 700);
    view.setStore(session.get(), s.path);
    const auto runs = session->store.list_runs();
    view.showRuns(runs, runs);
    QTRY_COMPARE(view.probeChoices().size(), 3);
    QVERIFY(view.choose("attn.max_logit", HeadReduction::Max, false));
    QTRY_COMPARE(view.heatmaps().size(), size_t(2));
    QCOMPARE(fathom::gui::export_target(&view), &view);  // the tab, not its first plot
    QTemporaryDir out;
    for (bool lines : {false, true}) {
      QVERIFY(view.choose("attn.max_logit", HeadReduction::Max, lines));
      const QString path = out.filePath(lines ? "lines.pdf" : "maps.pdf");
      QStringList written;
      QVERIFY2(
          fathom::gui::export_figures(&view, path, fathom::plot::kColumnSize, &written, &error),
          qPrintable(error));
      QStringList expected;
      for (const auto& r : runs)
        expected << QFileInfo(
                        out.filePath(
                            QStringLiteral("%1-run%2.pdf").arg(lines ? "lines" : "maps").arg(r.id)))
                        .absoluteFilePath();
      std::sort(written.begin(), written.end());
      std::sort(expected.begin(), expected.end());
      QCOMPARE(written, expected);
      for (const QString& file : written) QVERIFY2(QFileInfo(file).size() > 1000, qPrintable(file));
    }
  }
};

FATHOM_GUI_TEST(ProbesViewTest);

}  // namespace test_probes_view

#include "test_probes_view.moc"
