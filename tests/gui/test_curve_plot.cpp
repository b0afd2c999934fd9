// A dashboard chart draws decimated curves (never every point), keeps the user's zoom across
// data updates, switches to a log axis, and reads out the point under the mouse.
#include <qcustomplot.h>
#include <QApplication>
#include <QMouseEvent>
#include <QSignalSpy>
#include <QTest>
#include <QWheelEvent>
#include <cmath>
#include <string>

#include "gui/curve_plot.h"
#include "tests/gui/gui_test_registry.h"

using fathom::gui::CurvePlot;

namespace test_curve_plot {

class CurvePlotTest : public QObject {
  Q_OBJECT
 private:
  static fathom::plot::CurveFigure figure(int points) {
    fathom::plot::CurveFigure f;
    fathom::plot::Curve c;
    c.label = "#1 run";
    c.metric = "train_loss";
    for (int i = 1; i <= points; ++i) {
      c.step.push_back(i);
      c.value.push_back(10.0 / i + (i % 7 == 0 ? 0.5 : 0));  // noisy, with spikes
    }
    f.curves.push_back(c);
    return f;
  }

 private slots:
  // From 40 run curves to 2 group curves (a regroup): the old graphs and their legend entries
  // all go -- the legend is emptied in one sweep before the graphs are removed -- and the
  // legend lists exactly the new curves, in order.
  void aNewFigureReplacesEveryGraphAndLegendEntry() {
    CurvePlot chart;
    chart.resize(600, 400);
    fathom::plot::CurveFigure many;
    for (int r = 0; r < 40; ++r) {
      fathom::plot::Curve c = figure(50).curves[0];
      c.label = "#" + std::to_string(r + 1) + " run";
      for (auto& v : c.value) v += r;
      many.curves.push_back(c);
    }
    chart.setFigure(many);
    QCOMPARE(chart.graphCount(), 40);
    QCOMPARE(chart.plot()->plottableCount(), 40);
    fathom::plot::CurveFigure two = figure(50);
    two.curves[0].label = "layers=6 (n=20)";
    two.curves.push_back(two.curves[0]);
    two.curves[1].label = "layers=18 (n=20)";
    chart.setFigure(two, /*rewritten=*/true);
    QCOMPARE(chart.graphCount(), 2);
    QCOMPARE(chart.plot()->plottableCount(), 2);
    QCustomPlot* plot = chart.plot();
    QVERIFY(plot->legend);
    QCOMPARE(plot->legend->itemCount(), 2);
    for (int i = 0; i < 2; ++i) {
      auto* item = qobject_cast<QCPPlottableLegendItem*>(plot->legend->item(i));
      QVERIFY(item);
      QCOMPARE(item->plottable()->name(), QString::fromStdString(two.curves[i].label));
    }
  }

  // The dashboard's charts share one legend of their own (gui/shared_legend.h): a chart
  // without its legend makes no entries in QCustomPlot's (each one's insertion and removal grew
  // with it: thousands of runs' curves rebuilt in twice the time), and its hover still reads
  // the named curves -- not the faint raw lines beneath them.
  void aChartWithoutItsLegendMakesNoEntriesAndStillNamesACurve() {
    CurvePlot chart;
    chart.resize(600, 400);
    chart.setLegendVisible(false);
    fathom::plot::CurveFigure f;
    for (int r = 0; r < 3; ++r) {
      fathom::plot::Curve c = figure(50).curves[0];
      c.label = "#" + std::to_string(r + 1) + " run";
      for (auto& v : c.value) v = 1.0 + 2.0 * r;  // flat lines at 1, 3 and 5
      f.curves.push_back(c);
    }
    f.smoothing = 0.6;  // a faint raw line under each
    chart.setFigure(f);
    QCustomPlot* plot = chart.plot();
    QCOMPARE(plot->plottableCount(), 6);
    QVERIFY(!plot->legend || plot->legend->itemCount() == 0);
    QVERIFY(plot->autoAddPlottableToLegend());  // the plot's own setting is given back
    plot->replot();
    const QPoint at(int(plot->xAxis->coordToPixel(25)), int(plot->yAxis->coordToPixel(3.0)));
    const QString readout = chart.readoutAt(at);
    // The step, then each named curve at it (highest first); no row for a raw line.
    const QStringList rows = readout.split(QLatin1Char('\n'));
    QCOMPARE(rows.size(), 4);
    QVERIFY2(rows[2].startsWith(QStringLiteral("#2 run")), qPrintable(readout));
    // With its legend the same chart lists the three named curves, not the raw lines.
    chart.setLegendVisible(true);
    chart.setFigure(f, /*rewritten=*/true);
    QCOMPARE(chart.plot()->legend->itemCount(), 3);
  }

  // A live sweep's poll: the curves that grew inside the axes are drawn again on a layer of
  // their own, the ended runs' picture is kept (no full replot), and what shows is what a
  // full replot draws. Once most of that layer stopped growing its curves go back, in one
  // full replot, and the next poll draws the growing ones alone again.
  void aLivePollRedrawsOnlyTheCurvesThatGrew() {
    CurvePlot chart;
    chart.resize(600, 400);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    fathom::plot::CurveFigure f;
    for (int r = 0; r < 40; ++r) {  // 40 runs of 100 points; the first two are half-way
      fathom::plot::Curve c;
      c.label = "#" + std::to_string(r + 1) + " run";
      c.metric = "train_loss";
      for (int i = 1; i <= (r < 2 ? 50 : 100); ++i) {
        c.step.push_back(i);
        c.value.push_back(5.0 / i + 0.1 * r);
      }
      f.curves.push_back(c);
    }
    chart.setFigure(f);
    QApplication::processEvents();  // the queued replot
    QCustomPlot* plot = chart.plot();
    QSignalSpy full(plot, &QCustomPlot::beforeReplot);
    QCOMPARE(plot->graphCount(), 40);  // a graph a run, in order (no smoothing: no raw lines)
    auto layer_of = [&](int run) { return plot->graph(run)->layer()->name(); };
    auto grow = [&](int runs) {  // a point more for the first `runs`, at their last value
      for (int r = 0; r < runs; ++r) {
        f.curves[r].step.push_back(f.curves[r].step.back() + 1);
        f.curves[r].value.push_back(f.curves[r].value.back());
      }
      chart.setFigure(f);
      QApplication::processEvents();
    };
    grow(2);  // the two go onto the growing layer: one full replot
    QCOMPARE(full.count(), 1);
    QCOMPARE(layer_of(0), QStringLiteral("growing"));
    QCOMPARE(layer_of(5), QStringLiteral("main"));
    grow(2);  // steady state: that layer alone
    QCOMPARE(full.count(), 1);
    const QImage partial = plot->grab().toImage();
    plot->replot();
    QCOMPARE(full.count(), 2);
    QCOMPARE(plot->grab().toImage(), partial);

    grow(40);  // every run past the axes' end: in full, every curve on the growing layer
    QCOMPARE(full.count(), 3);
    QCOMPARE(layer_of(5), QStringLiteral("growing"));
    grow(2);  // 38 of 40 stopped: back, in one full replot
    QCOMPARE(full.count(), 4);
    QCOMPARE(layer_of(5), QStringLiteral("main"));
    QCOMPARE(layer_of(1), QStringLiteral("growing"));
    grow(2);
    QCOMPARE(full.count(), 4);
  }

  void longCurvesAreDecimated() {
    CurvePlot chart;
    chart.resize(600, 400);
    chart.setFigure(figure(100000));
    QCOMPARE(chart.graphCount(), 1);
    const int drawn = chart.plot()->graph(0)->dataCount();
    QVERIFY2(drawn < 5000, qPrintable(QString::number(drawn)));  // ~4 points per pixel bucket
    QCOMPARE(chart.plot()->graph(0)->data()->at(drawn - 1)->key, 100000.0);  // the end survives
  }

  void liveAppendsKeepTheDivergenceSpike() {
    // The dashboard's steady state: a long curve grows by a few points per poll (incremental
    // EMA and decimation); a spike among the new points must show, and the points drawn stay
    // bounded by the chart's width, not the curve's length.
    CurvePlot chart;
    chart.resize(600, 400);
    auto f = figure(100000);
    f.smoothing = 0.6;
    chart.setFigure(f);
    QCOMPARE(chart.graphCount(), 2);  // faint raw + smoothed
    for (int i = 100001; i <= 100010; ++i) {
      f.curves[0].step.push_back(i);
      f.curves[0].value.push_back(i == 100005 ? 1e4 : 0.01);
      chart.setFigure(f);
    }
    for (int g = 0; g < 2; ++g) {
      const auto* data = chart.plot()->graph(g)->data().data();
      QVERIFY2(data->size() < 1000, qPrintable(QString::number(data->size())));
      double top = 0;
      for (auto it = data->constBegin(); it != data->constEnd(); ++it)
        top = std::max(top, it->value);
      QVERIFY2(top > 1e3, qPrintable(QString::number(top)));  // raw 1e4; smoothed 0.4 * 1e4
      QCOMPARE((data->constEnd() - 1)->key, 100010.0);
    }
    QVERIFY(chart.plot()->yAxis->range().upper > 1e3);  // the axes follow the new points
  }

  void zoomSurvivesUpdatesAndDoubleClickFits() {
    CurvePlot chart;
    chart.resize(600, 400);
    chart.setFigure(figure(500));
    QCustomPlot* plot = chart.plot();
    plot->replot();  // lays out the axis rect the wheel event must hit
    const QPointF centre = plot->axisRect()->rect().center();
    QWheelEvent wheel(centre, plot->mapToGlobal(centre), {}, {0, 120}, Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QCoreApplication::sendEvent(plot, &wheel);
    const QCPRange zoomed = plot->xAxis->range();
    QVERIFY(zoomed.size() < 499);
    chart.setFigure(figure(600));  // new points arrive
    QCOMPARE(plot->xAxis->range().lower, zoomed.lower);
    QCOMPARE(plot->xAxis->range().upper, zoomed.upper);
    chart.resetZoom();
    // Fitted to the points 1..600, with air: 2.5 % of the range each side (issue 58 item 9).
    QCOMPARE(plot->xAxis->range().upper, 600 + 0.025 * 599);
  }

  // Issue 58 item 9: no extreme point sits on the frame, where its marker would be cut in
  // half -- on a linear axis 2.5 % of the range each side, on a log axis 2.5 % of the decades
  // each side -- after the set-up, after new points and after a double-click fit alike.
  void fittedAxesLeaveAirAroundTheExtremes() {
    CurvePlot chart;
    chart.resize(600, 400);
    auto f = figure(100);  // x 1..100; y from 10 / 1 = 10 down to 10 / 100 + 0 = 0.1
    f.y.scale = fathom::plot::Scale::Log;
    auto check = [&](double x_last) {
      const QCPRange x = chart.plot()->xAxis->range(), y = chart.plot()->yAxis->range();
      QCOMPARE(x.lower, 1 - 0.025 * (x_last - 1));
      QCOMPARE(x.upper, x_last + 0.025 * (x_last - 1));
      const double lo = 10.0 / (x_last == 100 ? 100 : 200), decades = std::log10(10 / lo);
      QVERIFY2(std::abs(std::log10(y.lower) - (std::log10(lo) - 0.025 * decades)) < 1e-9,
               qPrintable(QString::number(y.lower)));
      QVERIFY2(std::abs(std::log10(y.upper) - (1 + 0.025 * decades)) < 1e-9,
               qPrintable(QString::number(y.upper)));
    };
    chart.setFigure(f);
    check(100);
    chart.setFigure([&] {
      auto more = f;
      more.curves = figure(200).curves;
      return more;
    }());
    check(200);
    chart.resetZoom();
    check(200);
  }

  void logAxis() {
    CurvePlot chart;
    auto f = figure(100);
    f.y.scale = fathom::plot::Scale::Log;
    chart.setFigure(f);
    QCOMPARE(chart.plot()->yAxis->scaleType(), QCPAxis::stLogarithmic);
  }

  void hoverReadsOutTheNearestPoint() {
    CurvePlot chart;
    chart.resize(600, 400);
    chart.setFigure(figure(50));
    QCustomPlot* plot = chart.plot();
    plot->replot();
    const QPointF at(plot->xAxis->coordToPixel(20), plot->yAxis->coordToPixel(10.0 / 20));
    QMouseEvent move(QEvent::MouseMove, at, plot->mapToGlobal(at), Qt::NoButton, Qt::NoButton,
                     Qt::NoModifier);
    QCoreApplication::sendEvent(plot, &move);
    QVERIFY2(chart.readoutText().contains("#1 run"), qPrintable(chart.readoutText()));
    QVERIFY2(chart.readoutText().contains("step 20"), qPrintable(chart.readoutText()));
  }
};

FATHOM_GUI_TEST(CurvePlotTest);

}  // namespace test_curve_plot

#include "test_curve_plot.moc"
