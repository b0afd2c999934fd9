// Spike forensics on the dashboard (issue 38 item 5): a spike of a run's training loss is
// marked where it is, with its z and rolling mean in the hover read-out, as its points arrive
// by polling; a spike rule that no point passes takes the mark away; a fork is marked where it
// left its parent and says so in its label, and brings its parent's curve when shown without it.
// Every expected value is worked out by hand from the points written here.
#include <limits>

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "db/store.h"
#include "gui/chart_marks.h"
#include "gui/curve_plot.h"
#include "gui/dashboard_view.h"
#include "gui/export_targets.h"
#include "gui/shared_legend.h"
#include "gui/spike_cache.h"
#include "gui/store_session.h"
#include "tests/gui/gui_test_registry.h"

using fathom::SpikeRule;
using fathom::db::MetricRow;
using fathom::db::NewRun;
using fathom::db::Store;
using namespace fathom::gui;

namespace test_spike_marks {

// Point i (from 0) of a calm loss at update 10 (i + 1): 2.9, 3.0 or 3.1 in turn.
double calm(int i) { return 3.0 + 0.1 * (i % 3 - 1); }

std::vector<MetricRow> loss(int from, int to, int spike_at = -1) {
  std::vector<MetricRow> rows;
  for (int i = from; i < to; ++i) {
    const int step = 10 * (i + 1);
    rows.emplace_back(step, "train_loss", step == spike_at ? 9.0 : calm(i), 0.0);
  }
  return rows;
}

// A run named `name` with `rows`; a fork of `parent` at update 200 where one is given.
int64_t run_with(Store& store, const std::string& name, const std::vector<MetricRow>& rows,
                 int64_t parent = 0) {
  NewRun run;
  run.name = name;
  const int64_t id = store.create_run(run);
  store.write_metrics(id, rows);
  if (parent) {
    store.set_tag(id, "forked_from", std::to_string(parent));
    store.set_tag(id, "forked_at", "200");
  }
  return id;
}

class SpikeMarksTest : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;

  static bool pollAndWait(DashboardView& view) {
    for (int i = 0; i < 500 && view.pollPending(); ++i) QTest::qWait(10);
    QSignalSpy applied(&view, &DashboardView::pointsApplied);
    view.poll();
    return view.pollPending() && applied.wait(5000);
  }

  static std::vector<ChartMark> marksOf(const CurvePlot& chart, ChartMark::Kind kind) {
    std::vector<ChartMark> out;
    for (const ChartMark& m : chart.marks())
      if (m.kind == kind) out.push_back(m);
    return out;
  }

 private slots:
  void aSpikeIsMarkedWhereItIs() {
    const QString db = dir_.filePath("spike.db");
    auto writer = Store::open(db.toStdString());
    NewRun r;
    r.name = "spiky";
    const int64_t run = writer.create_run(r);
    writer.mark_running(run, "host", "cpu");
    writer.write_metrics(run, loss(0, 20));  // updates 10..200: too few to judge any point

    QString error;
    auto session = StoreSession::open(db, &error);
    QVERIFY2(session, qPrintable(error));
    DashboardView view;
    view.resize(1000, 700);
    view.setSpikeRule(SpikeRule{4, 20});
    view.setSession(session.get());
    view.setRuns(session->store.list_runs());
    QTRY_COMPARE(view.cache().series(run, "train_loss").size(), size_t(20));
    CurvePlot* chart = view.chart("train_loss");
    QVERIFY(chart);
    QVERIFY(chart->marks().empty());

    // Updates 210..300 arrive while it trains, 9.0 at update 250 among them.
    Store::open(db.toStdString()).write_metrics(run, loss(20, 30, 250));
    QVERIFY(pollAndWait(view));
    QCOMPARE(view.cache().series(run, "train_loss").size(), size_t(30));
    const auto spikes = marksOf(*chart, ChartMark::Kind::Spike);
    QCOMPARE(spikes.size(), size_t(1));
    QCOMPARE(spikes[0].x, 250.0);
    QCOMPARE(spikes[0].y, 9.0);
    const auto drawn = chart->drawnMarks(ChartMark::Kind::Spike);
    QCOMPARE(drawn.size(), size_t(1));
    QCOMPARE(drawn[0], std::make_pair(250.0, 9.0));
    // The 20 points before it (updates 50..240): six 2.9, seven 3.0, seven 3.1 -- mean 3.005,
    // sample std sqrt(0.1295 / 19) = 0.08256, z = (9 - 3.005) / 0.08256 = 72.6.
    QVERIFY(spikes[0].text.contains("spike: 9, z = 72.6, mean of the 20 before: 3.005"));
    // Export... draws it as `fathom export plot curves` does, with the rule in its legend.
    const auto exported = figure_to_export(chart->plot());
    QVERIFY(exported);
    const auto& figure = std::get<fathom::plot::CurveFigure>(*exported);
    QCOMPARE(figure.curves.size(), size_t(1));
    QCOMPARE(figure.curves[0].spike_x, std::vector<double>{250.0});
    QCOMPARE(figure.curves[0].spike_y, std::vector<double>{9.0});
    QCOMPARE(figure.spikes_are, std::string("spike (> 4 sd above the last 20)"));

    // The hover read-out names it: the pointer sits just above the point.
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    chart->plot()->replot(QCustomPlot::rpImmediateRefresh);
    const QPoint at(static_cast<int>(chart->plot()->xAxis->coordToPixel(250)),
                    static_cast<int>(chart->plot()->yAxis->coordToPixel(9.0)) - 8);
    const QString readout = chart->readoutAt(at);
    QVERIFY2(readout.contains("spike: 9, z = 72.6"), qPrintable(readout));
    QVERIFY2(readout.contains("step 250"), qPrintable(readout));

    // No point is 1000 standard deviations above its window: the mark goes; back at k = 4 it
    // is there again.
    view.setSpikeRule(SpikeRule{1000, 20});
    QVERIFY(chart->marks().empty());
    QVERIFY(chart->drawnMarks(ChartMark::Kind::Spike).empty());
    view.setSpikeRule(SpikeRule{4, 20});
    QCOMPARE(chart->drawnMarks(ChartMark::Kind::Spike).size(), size_t(1));
  }

  // Found as the points arrive, a few at a time, the spikes are those of the whole curve at
  // once -- NaN points among them, which the rolling window skips; a rewritten curve (a resume)
  // and a new rule are judged afresh. The curve: calm, then 9.0 at 250, NaN at 260 and 20.0 at
  // 270: spikes at 250 (above the calm window), 260 (the first non-finite point) and 270 (its
  // window holds 9.0 now -- mean 3.305, sample std 1.343 -- and 20.0 is still z = 12.4).
  void spikesFoundAsPointsArriveAreTheWholeCurves() {
    std::vector<fathom::db::MetricPoint> points;
    for (int i = 0; i < 30; ++i) points.push_back({10 * (i + 1), calm(i), 0.0});
    points[24].value = 9.0;
    points[25].value = std::numeric_limits<double>::quiet_NaN();
    points[26].value = 20.0;
    SpikeCache cache;
    cache.setRule(SpikeRule{4, 20});
    std::vector<fathom::db::MetricPoint> growing;
    for (const auto& p : points) {
      growing.push_back(p);
      cache.spikes({1, "train_loss"}, growing);
    }
    std::vector<int64_t> steps;
    for (const auto& s : cache.spikes({1, "train_loss"}, growing)) steps.push_back(s.step);
    QCOMPARE(steps, (std::vector<int64_t>{250, 260, 270}));
    // Rewritten from update 250 on (a resume logs them again, later): calm, no spike.
    for (int i = 24; i < 30; ++i) growing[i] = {10 * (i + 1), calm(i), 1.0};
    QVERIFY(cache.spikes({1, "train_loss"}, growing).empty());
    // A rule that asks more: 250 was z = 72.6 (see aSpikeIsMarkedWhereItIs); k = 100 leaves none.
    growing[24].value = 9.0;
    cache.setRule(SpikeRule{100, 20});
    QVERIFY(cache.spikes({1, "train_loss"}, growing).empty());
  }

  void aForkIsMarkedWhereItLeftItsParent() {
    const QString db = dir_.filePath("fork.db");
    auto writer = Store::open(db.toStdString());
    const int64_t parent_id = run_with(writer, "parent", loss(0, 30));
    // The parent's rows up to update 200 (2.9, 3.0, 3.1 in turn), then lower: 2.5 from 210.
    std::vector<MetricRow> rows = loss(0, 20);
    for (int step = 210; step <= 300; step += 10) rows.emplace_back(step, "train_loss", 2.5, 0.0);
    const int64_t fork_id = run_with(writer, "parent fork@200", rows, parent_id);

    QString error;
    auto session = StoreSession::open(db, &error);
    QVERIFY2(session, qPrintable(error));
    DashboardView view;
    view.resize(1000, 700);
    view.setSmoothing(0);  // the line goes through the points: the mark sits on update 200's
    view.setSession(session.get());
    view.setRuns(session->store.list_runs());
    QTRY_COMPARE(view.cache().series(fork_id, "train_loss").size(), size_t(30));
    QTRY_COMPARE(view.cache().series(parent_id, "train_loss").size(), size_t(30));
    CurvePlot* chart = view.chart("train_loss");
    QVERIFY(chart);
    QTRY_COMPARE(marksOf(*chart, ChartMark::Kind::Fork).size(), size_t(1));
    const ChartMark mark = marksOf(*chart, ChartMark::Kind::Fork)[0];
    QCOMPARE(mark.x, 200.0);
    QCOMPARE(mark.y, 3.0);  // update 200 is point 19: 3.0
    const QString suffix = QStringLiteral("(fork of #%1 at 200)").arg(parent_id);
    QVERIFY2(mark.curve.endsWith(suffix), qPrintable(mark.curve));
    QVERIFY(mark.curve.contains("fork@200"));
    QCOMPARE(chart->drawnMarks(ChartMark::Kind::Fork), (std::vector{std::make_pair(200.0, 3.0)}));
    QVERIFY(marksOf(*chart, ChartMark::Kind::Spike).empty());  // a step down is no spike

    // Export... draws it too, where `fathom export plot curves` does (plot::Curve::fork_step).
    const auto exported = figure_to_export(chart->plot());
    QVERIFY(exported);
    std::vector<double> fork_steps;
    for (const auto& c : std::get<fathom::plot::CurveFigure>(*exported).curves)
      if (c.fork_step) fork_steps.push_back(*c.fork_step);
    QCOMPARE(fork_steps, std::vector<double>{200.0});

    // The legend says it too, and only for the fork.
    int forks = 0;
    for (int i = 0; i < view.legend()->count(); ++i)
      forks += view.legend()->item(i)->data(Qt::UserRole).toString().endsWith(suffix);
    QCOMPARE(view.legend()->count(), 2);
    QCOMPARE(forks, 1);
  }

  // A fork shown without its parent brings the parent's curve -- what a rescue is judged
  // against past the fork point -- first, labelled "(parent)", in its own style though both
  // share a colour-by value; shown with it, the parent is drawn once, as itself.
  void aShownForkBringsItsParentsCurve() {
    const QString db = dir_.filePath("parent.db");
    auto writer = Store::open(db.toStdString());
    const int64_t parent_id = run_with(writer, "base", loss(0, 30));
    writer.set_tag(parent_id, "axis.train.lr", "0.01");  // from a sweep of its own
    const int64_t fork_id = run_with(writer, "rescue/lr=0.01", loss(0, 30), parent_id);
    writer.set_tag(fork_id, "axis.train.lr", "0.01");
    const int64_t other_fork = run_with(writer, "rescue/lr=0.005", loss(0, 30), parent_id);
    writer.set_tag(other_fork, "axis.train.lr", "0.005");

    QString error;
    auto session = StoreSession::open(db, &error);
    QVERIFY2(session, qPrintable(error));
    DashboardView view;
    view.resize(1000, 700);
    view.setSession(session.get());
    view.setRuns({*session->store.find_run(std::to_string(fork_id))});
    QVERIFY(view.setColourBy("axis.train.lr"));
    QCOMPARE(view.parents().size(), size_t(1));
    QCOMPARE(view.parents()[0].id, parent_id);
    QTRY_COMPARE(view.cache().series(parent_id, "train_loss").size(), size_t(30));
    QCOMPARE(view.legend()->count(), 2);
    const QString first = view.legend()->item(0)->data(Qt::UserRole).toString();
    QVERIFY2(first.endsWith("base (parent)"), qPrintable(first));
    CurvePlot* chart = view.chart("train_loss");
    QVERIFY(chart);
    QStringList drawn;
    for (int i = 0; i < chart->plot()->graphCount(); ++i) drawn << chart->plot()->graph(i)->name();
    QVERIFY2(drawn.filter("(parent)").size() >= 1, qPrintable(drawn.join(" | ")));
    QVERIFY2(drawn.filter("(fork of #").size() >= 1, qPrintable(drawn.join(" | ")));
    // Its own style, by its id: by the colour-by value it shares with the fork it would take the
    // fork's (the first of one value).
    QPen parent_pen, fork_pen;
    for (int i = 0; i < chart->plot()->graphCount(); ++i) {
      const QString name = chart->plot()->graph(i)->name();
      if (name.endsWith("(parent)")) parent_pen = chart->plot()->graph(i)->pen();
      if (name.contains("(fork of #")) fork_pen = chart->plot()->graph(i)->pen();
    }
    QVERIFY(parent_pen.color() != fork_pen.color() || parent_pen.style() != fork_pen.style());

    // In seed groups the parent is drawn beside them, run by run: no member of the forks'
    // groups, in a look of its own -- by its id (#1) it took the second group's.
    view.setRuns({*session->store.find_run(std::to_string(fork_id)),
                  *session->store.find_run(std::to_string(other_fork))});
    view.setGroupBy(QStringLiteral("axes"));
    chart = view.chart("train_loss");
    QVERIFY(chart);
    QTRY_VERIFY(chart->plot()->graphCount() > 0);
    std::vector<QPen> group_pens;
    QPen grouped_parent_pen;
    QStringList grouped;
    for (int i = 0; i < chart->plot()->graphCount(); ++i) {
      const QString name = chart->plot()->graph(i)->name();
      grouped << name;
      if (name.endsWith("(parent)"))
        grouped_parent_pen = chart->plot()->graph(i)->pen();
      else if (name.startsWith("lr="))
        group_pens.push_back(chart->plot()->graph(i)->pen());
    }
    QVERIFY2(grouped.filter("(parent)").size() >= 1, qPrintable(grouped.join(" | ")));
    QVERIFY2(!group_pens.empty(), qPrintable(grouped.join(" | ")));
    for (const QPen& pen : group_pens)
      QVERIFY2(
          pen.color() != grouped_parent_pen.color() || pen.style() != grouped_parent_pen.style(),
          qPrintable(grouped.join(" | ")));
    QCOMPARE(view.legend()->count(), 3);
    QVERIFY2(view.caption().contains("2 runs in 2 groups and the parent of their forks"),
             qPrintable(view.caption()));
    view.setGroupBy(QString());

    view.setRuns(session->store.list_runs());  // the parent selected too
    QVERIFY(view.parents().empty());
    QCOMPARE(view.legend()->count(), 3);
    for (int i = 0; i < view.legend()->count(); ++i)
      QVERIFY(!view.legend()->item(i)->data(Qt::UserRole).toString().endsWith("(parent)"));
  }
};

FATHOM_GUI_TEST(SpikeMarksTest);

}  // namespace test_spike_marks

#include "test_spike_marks.moc"
