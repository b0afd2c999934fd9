// The parallel-coordinates tab: a sweep's runs as lines over its swept keys and the chosen
// metrics (plot/parallel_coordinates.h), redrawn when runs finish.
#include <qcustomplot.h>
#include <QApplication>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QToolTip>

#include <map>

#include "db/run_status.h"
#include "db/store.h"
#include "gui/export_targets.h"
#include "gui/parallel_view.h"
#include "gui/run_brush.h"
#include "gui/runs_filter.h"
#include "gui/runs_view.h"
#include "gui/store_session.h"
#include "plot/style.h"
#include "tests/gui/gui_test_registry.h"

using fathom::db::NewRun;
using fathom::db::Store;

namespace test_parallel_view {

// The pixel of (axis, position) on the view's plot.
QPoint at(const fathom::gui::ParallelView& view, double axis, double position) {
  return QPoint(qRound(view.plot()->xAxis->coordToPixel(axis)),
                qRound(view.plot()->yAxis->coordToPixel(position)));
}

// A mouse drag along the plot, from `from` to `to`.
void drag(const fathom::gui::ParallelView& view, QPoint from, QPoint to) {
  QTest::mousePress(view.plot(), Qt::LeftButton, {}, from);
  QTest::mouseMove(view.plot(), (from + to) / 2);
  QTest::mouseMove(view.plot(), to);
  QTest::mouseRelease(view.plot(), Qt::LeftButton, {}, to);
}

// The texts of the plot's text items, with the items.
std::vector<QCPItemText*> texts(const QCustomPlot& plot) {
  std::vector<QCPItemText*> out;
  for (int i = 0; i < plot.itemCount(); ++i)
    if (auto* t = qobject_cast<QCPItemText*>(plot.item(i))) out.push_back(t);
  return out;
}

// A runs table on the store at `db` that honours a brush, as the window wires them.
struct BrushedTable {
  explicit BrushedTable(const QString& db) : session(fathom::gui::StoreSession::open(db, &error)) {
    runs.setBrush(&brush);
    if (session) runs.setSession(session.get(), db);
  }
  QString error;
  std::unique_ptr<fathom::gui::StoreSession> session;
  fathom::gui::RunBrush brush;
  fathom::gui::RunsView runs;
};

// A run of sweep "s" at a norm and rate (its axis tags), not ended yet.
int64_t add_run(Store& store, const char* norm, const char* lr) {
  NewRun r;
  r.name = std::string("s/") + norm + lr;
  r.sweep = "s";
  const int64_t id = store.create_run(r);
  store.set_tag(id, "axis.model.norm", norm);
  store.set_tag(id, "axis.train.lr", lr);
  return id;
}

// A view on the store at `db`, its runs shown.
struct ShownView {
  explicit ShownView(const QString& db) : session(fathom::gui::StoreSession::open(db, &error)) {
    if (!session) return;
    view.setStore(session.get(), db);
    view.showRuns(session->store.list_runs(), {});
  }
  QString error;
  std::unique_ptr<fathom::gui::StoreSession> session;
  fathom::gui::ParallelView view;
};

class ParallelViewTest : public QObject {
  Q_OBJECT
 private slots:
  // A run that finishes inside the drawn axes adds its line alone: the other lines stay the
  // same curves (a sweep of 16,384 runs drew every one again), the new one is coloured for
  // its value on the same colour axis. One that finishes outside them (a new maximum) draws
  // the plot again, every line coloured for the new range.
  void aRunThatFinishesInsideTheAxesAddsItsLineAlone() {
    QTemporaryDir dir;
    const QString db = dir.filePath("grow.db");
    auto store = Store::open(db.toStdString());
    int n = 0;
    for (const char* norm : {"post", "pre"})
      for (const char* lr : {"0.0001", "0.01"}) {
        const int64_t id = add_run(store, norm, lr);
        store.set_final_metric(id, "valid_ppl", 3.0 + n++);  // 3 to 6
        store.finish_run(id, "finished");
      }
    const int64_t inside = add_run(store, "post", "0.01");
    const int64_t outside = add_run(store, "pre", "0.0001");
    ShownView shown(db);
    QVERIFY2(shown.session, qPrintable(shown.error));
    fathom::gui::ParallelView& view = shown.view;
    QVERIFY(view.choose("s", "valid_ppl"));
    QCOMPARE(view.plot()->plottableCount(), 4);
    std::vector<QCPAbstractPlottable*> before;
    for (int i = 0; i < 4; ++i) before.push_back(view.plot()->plottable(i));
    auto finish = [&](int64_t id, double ppl) {
      store.set_final_metric(id, "valid_ppl", ppl);
      store.finish_run(id, "finished");
      view.showRuns(shown.session->store.list_runs(), {});
      view.waitForResults();
      QApplication::processEvents();  // the read's result is shown on the UI thread
    };
    QSignalSpy full(view.plot(), &QCustomPlot::beforeReplot);
    finish(inside, 4.5);
    // Its line alone is painted (a layer of its own): no full replot, and the widget's picture
    // is what a full replot paints.
    QCOMPARE(full.count(), 0);
    QCOMPARE(view.plot()->plottable(4)->layer()->name(), QStringLiteral("added"));
    const QImage partial = view.plot()->grab().toImage();
    view.plot()->replot();
    QCOMPARE(view.plot()->grab().toImage(), partial);
    QCOMPARE(view.plot()->plottableCount(), 5);
    for (int i = 0; i < 4; ++i) QCOMPARE(view.plot()->plottable(i), before[i]);
    QCOMPARE(view.shown()->lines[4].run_id, inside);
    // valid_ppl 4.5 on 3..6: half way up the colour axis.
    QCOMPARE(view.plot()->plottable(4)->pen().color(), fathom::plot::gradient_colour(0.5));
    QVERIFY2(view.noteText().startsWith("5 runs"), qPrintable(view.noteText()));

    full.clear();
    finish(outside, 9.0);  // past the axis's end: 3..9, drawn in full
    QVERIFY(full.count() > 0);
    QCOMPARE(view.plot()->plottableCount(), 6);
    QCOMPARE(view.shown()->axes.back().max, 9.0);
    for (size_t i = 0; i < view.shown()->lines.size(); ++i) {
      const double t = (view.shown()->lines[i].values.back() - 3.0) / 6.0;
      QCOMPARE(view.plot()->plottable(static_cast<int>(i))->pen().color(),
               fathom::plot::gradient_colour(t));
    }
  }

  void aSweepsRunsAreLinesOverItsAxes() {
    QTemporaryDir dir;
    const QString db = dir.filePath("p.db");
    auto store = Store::open(db.toStdString());
    int n = 0;
    for (const char* norm : {"post", "pre"})
      for (const char* lr : {"0.0001", "0.01"}) {
        const int64_t id = add_run(store, norm, lr);
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
    ShownView shown(db);
    QVERIFY2(shown.session, qPrintable(shown.error));
    fathom::gui::ParallelView& view = shown.view;
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

  // A line per run, thousands of them: drawn on screen without antialiasing (a third of the
  // time at 4,096 runs); an export of the plot as shown is antialiased, and the screen keeps
  // its setting after it.
  void linesAreDrawnWithoutAntialiasingOnScreenNotInAnExport() {
    QTemporaryDir dir;
    const QString db = dir.filePath("a.db");
    {
      auto store = Store::open(db.toStdString());
      for (const char* lr : {"0.001", "0.01"}) {
        NewRun r;
        r.name = std::string("s/") + lr;
        r.sweep = "s";
        const int64_t id = store.create_run(r);
        store.set_tag(id, "axis.train.lr", lr);
        store.set_final_metric(id, "valid_ppl", lr[3] == '1' ? 3.0 : 4.0);
        store.finish_run(id, "finished");
      }
    }
    ShownView shown(db);
    QVERIFY2(shown.session, qPrintable(shown.error));
    fathom::gui::ParallelView& view = shown.view;
    QVERIFY(view.choose("s", "valid_ppl"));
    QVERIFY(view.plot()->notAntialiasedElements().testFlag(QCP::aePlottables));
    const QString png = dir.filePath("p.png");
    QString error;
    QVERIFY2(fathom::gui::export_plot(view.plot(), png, fathom::plot::FigureSize{}, &error),
             qPrintable(error));
    QVERIFY(QFileInfo(png).size() > 0);
    QVERIFY(view.plot()->notAntialiasedElements().testFlag(QCP::aePlottables));
    QVERIFY(!view.plot()->antialiasedElements().testFlag(QCP::aePlottables));
  }

  // The sweep is read in a worker thread: a choice returns at once, the lines drawn stay (a
  // poll does not blank the plot) until the read of the latest choices is shown, and a read of
  // older ones never is.
  void aChoiceIsReadOffTheUiThreadAndTheLatestWins() {
    QTemporaryDir dir;
    const QString db = dir.filePath("w.db");
    {
      auto store = Store::open(db.toStdString());
      for (const char* norm : {"post", "pre"})
        for (const char* lr : {"0.001", "0.01"}) {
          const int64_t id = add_run(store, norm, lr);
          store.set_final_metric(id, "valid_ppl", norm[1] == 'o' ? 3.0 : 5.0);
          store.set_final_metric(id, "test_bleu", lr[3] == '1' ? 30.0 : 20.0);
          store.finish_run(id, "finished");
        }
    }
    ShownView shown(db);
    QVERIFY2(shown.session, qPrintable(shown.error));
    fathom::gui::ParallelView& view = shown.view;
    QVERIFY(view.choose("s", "valid_ppl"));
    QCOMPARE(view.shown()->lines.size(), size_t(4));
    QCOMPARE(view.shown()->axes.back().name, std::string("valid_ppl"));

    auto* metrics = view.findChildren<QLineEdit*>().at(0);
    auto* where = view.findChildren<QLineEdit*>().at(1);
    QCOMPARE(metrics->text(), QStringLiteral("valid_ppl"));
    metrics->setText(QStringLiteral("test_bleu"));
    QMetaObject::invokeMethod(metrics, "editingFinished");
    QVERIFY(view.reading());
    QCOMPARE(view.plot()->plottableCount(), 4);  // the last lines, until the read is shown
    QVERIFY2(view.noteText().startsWith(QStringLiteral("Reading sweep s")),
             qPrintable(view.noteText()));
    where->setText(QStringLiteral("valid_ppl>4"));  // Pre-LN's runs
    QMetaObject::invokeMethod(where, "editingFinished");
    view.waitForResults();
    QVERIFY(!view.reading());
    // Only the last choices' figure: Pre-LN's two runs coloured by BLEU.
    QVERIFY2(view.shown(), qPrintable(view.noteText()));
    QCOMPARE(view.shown()->lines.size(), size_t(2));
    QCOMPARE(view.shown()->axes.back().name, std::string("test_bleu"));
    QCOMPARE(view.plot()->plottableCount(), 2);
    QVERIFY2(view.noteText().startsWith(QStringLiteral("2 runs")), qPrintable(view.noteText()));
  }

  // Issue 58 item 8: brushing filters the runs table (axes AND), a click or Clear resets it,
  // hover names the run; a tick at each swept value, end values beyond the stems, no frame.
  void brushingFiltersTheRunsTable() {
    QTemporaryDir dir;
    const QString db = dir.filePath("b.db");
    std::map<std::string, int64_t> ids;  // by "norm lr"
    {
      auto store = Store::open(db.toStdString());
      int n = 0;
      for (const char* norm : {"post", "pre"})
        for (const char* lr : {"0.001", "0.002", "0.004", "0.008"}) {
          NewRun r;
          r.name = std::string("s/") + norm + "-" + lr;
          r.sweep = "s";
          const int64_t id = store.create_run(r);
          store.set_tag(id, "axis.model.norm", norm);
          store.set_tag(id, "axis.train.lr", lr);
          store.set_final_metric(id, "valid_ppl", 10.0 + n++);
          store.finish_run(id, "finished");
          ids[std::string(norm) + " " + lr] = id;
        }
      NewRun single;  // outside the sweep: in the table until a brush is set
      single.name = "single";
      store.finish_run(store.create_run(single), "finished");
    }
    BrushedTable table(db);
    QVERIFY2(table.session, qPrintable(table.error));
    auto& [error, session, brush, runs] = table;
    fathom::gui::ParallelView view;
    view.setBrush(&brush);
    view.setStore(session.get(), db);
    view.resize(1000, 640);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.showRuns(session->store.list_runs(), {});
    QVERIFY(view.choose("s", "valid_ppl"));
    view.plot()->replot();
    QCOMPARE(runs.filter()->rowCount(), 9);
    const auto& f = *view.shown();
    QCOMPARE(f.axes[1].name, std::string("train.lr"));
    QVERIFY(!f.axes[1].log);  // 0.001 to 0.008: less than a decade

    // Every swept value has its tick (the middle of the axis, 0.0045, was labelled before).
    QStringList labels;
    for (auto* t : texts(*view.plot())) labels << t->text();
    for (const char* v : {"0.001", "0.002", "0.004", "0.008"})
      QVERIFY2(labels.contains(v), qPrintable(labels.join(' ')));
    // The values at a stem's ends lie beyond it, where no line runs.
    const double top = view.plot()->yAxis->coordToPixel(1);
    const double bottom = view.plot()->yAxis->coordToPixel(0);
    int ends = 0;
    for (auto* t : texts(*view.plot())) {
      const double y = t->position->coords().y();
      if (y == 1) QVERIFY2(t->bottom->pixelPosition().y() <= top, qPrintable(t->text()));
      if (y == 0) QVERIFY2(t->top->pixelPosition().y() >= bottom, qPrintable(t->text()));
      ends += y == 0 || y == 1;
    }
    QCOMPARE(ends, 6);  // 3 axes, two ends each
    // No frame line for an edge line to merge with; stems wider than any line.
    QCOMPARE(view.plot()->xAxis->basePen().style(), Qt::NoPen);
    for (int i = 0; i < view.plot()->itemCount(); ++i)
      if (auto* stem = qobject_cast<QCPItemLine*>(view.plot()->item(i)))
        QVERIFY(stem->pen().widthF() > view.plot()->plottable(0)->pen().widthF());

    // Drag along train.lr over 0.004 and 0.008 (positions 3/7 and 1): 4 runs.
    drag(view, at(view, 1, 0.40), at(view, 1, 1.05));
    QVERIFY(brush.active());
    QCOMPARE(view.brushedLines().size(), size_t(4));
    QCOMPARE(runs.filter()->rowCount(), 4);
    QVERIFY(runs.brushNote()->isVisibleTo(&runs));
    // And along model.norm over pre: both ranges hold (AND).
    drag(view, at(view, 0, 0.9), at(view, 0, 1.05));
    QCOMPARE(runs.filter()->rowCount(), 2);
    QCOMPARE(brush.runs(), (std::set<int64_t>{ids["pre 0.004"], ids["pre 0.008"]}));
    QVERIFY2(brush.description().startsWith("model.norm pre and train.lr 0.004-0.008"),
             qPrintable(brush.description()));
    QVERIFY2(runs.brushNote()->text().contains("2 brushed"), qPrintable(runs.brushNote()->text()));
    // Brushed-out lines fade; brushed ones keep their colours.
    const QColor faded = view.plot()->plottable(0)->pen().color();  // post-0.001: out
    QVERIFY(faded.alpha() < 255);

    // Hover names the run under the pointer: pre-0.008 runs along the top from norm to lr.
    const QPoint over = (at(view, 0, 1) * 3 + at(view, 1, 1)) / 4;
    const QString hover = view.hoverText(over);
    QVERIFY2(hover.startsWith(QStringLiteral("#%1 pre-0.008").arg(ids["pre 0.008"])),
             qPrintable(hover));
    QVERIFY2(hover.contains("train.lr: 0.008"), qPrintable(hover));
    QVERIFY(view.hoverText(at(view, 0.5, -0.05)).isEmpty());  // below every line
    QTest::mouseMove(view.plot(), over);
    QTRY_VERIFY2(QToolTip::text().contains("pre-0.008"), qPrintable(QToolTip::text()));

    // A click on model.norm drops its range; clearing from the runs table drops the rest.
    QTest::mouseClick(view.plot(), Qt::LeftButton, {}, at(view, 0, 0.5));
    QCOMPARE(runs.filter()->rowCount(), 4);
    QCOMPARE(view.ranges().size(), size_t(1));
    emit runs.brushNote()->linkActivated("clear");
    QVERIFY(!brush.active());
    QVERIFY(view.ranges().empty());
    QCOMPARE(runs.filter()->rowCount(), 9);
    QVERIFY(!runs.brushNote()->isVisibleTo(&runs));
    QCOMPARE(view.plot()->plottable(0)->pen().color().alpha(), 255);
  }

  // Runs selected before a brush and hidden by it come back selected when it lets them
  // through (the views after a cleared brush showed fewer runs than were selected).
  void aSelectionHiddenByABrushComesBackWhenItIsCleared() {
    QTemporaryDir dir;
    const QString db = dir.filePath("s.db");
    std::vector<int64_t> ids;
    {
      auto store = Store::open(db.toStdString());
      for (int i = 0; i < 5; ++i) {
        NewRun r;
        r.name = "r" + std::to_string(i);
        ids.push_back(store.create_run(r));
        store.finish_run(ids.back(), "finished");
      }
    }
    BrushedTable table(db);
    QVERIFY2(table.session, qPrintable(table.error));
    auto& [error, session, brush, runs] = table;
    QCOMPARE(runs.filter()->rowCount(), 5);
    const auto selected = [&runs] {
      std::set<int64_t> out;
      for (const auto& r : runs.selectedRuns()) out.insert(r.id);
      return out;
    };
    runs.selectRuns({ids[0], ids[1], ids[2]});
    brush.set({ids[1], ids[3], ids[4]}, "b");
    QCOMPARE(selected(), (std::set<int64_t>{ids[1]}));  // what the brush shows of it
    brush.set({ids[0], ids[1]}, "c");                   // lets one back through
    QCOMPARE(selected(), (std::set<int64_t>{ids[0], ids[1]}));
    runs.selectRuns({ids[0]});  // chosen among the brushed runs: kept
    brush.clear();
    QCOMPARE(selected(), (std::set<int64_t>{ids[0], ids[2]}));
  }
};

FATHOM_GUI_TEST(ParallelViewTest);

}  // namespace test_parallel_view

#include "test_parallel_view.moc"
