// Issue 58 item 5: one hover read-out that lists every drawn run's value at the hovered step,
// highest first, with a crosshair there, in a tooltip that takes no room from the charts; runs
// the user hid and runs that ended before that step are not listed; the shared legend's
// tooltip says what its entry does not (the whole label, a group's members) and follows it.
#include <qcustomplot.h>
#include <QTest>
#include <QToolTip>

#include "gui/curve_plot.h"
#include "gui/shared_legend.h"
#include "plot/figure.h"
#include "tests/gui/gui_test_registry.h"

using fathom::gui::CurvePlot;
using fathom::gui::SharedLegend;

namespace test_hover_readout {

// A curve of steps 10, 20, ..., last_step at a constant value.
fathom::plot::Curve flat(const std::string& label, double value, int last_step) {
  fathom::plot::Curve c;
  c.label = label;
  for (int s = 10; s <= last_step; s += 10) {
    c.step.push_back(s);
    c.value.push_back(value);
  }
  return c;
}

void move_to(QCustomPlot* plot, const QPointF& at) {
  QMouseEvent move(QEvent::MouseMove, at, plot->mapToGlobal(at), Qt::NoButton, Qt::NoButton,
                   Qt::NoModifier);
  QCoreApplication::sendEvent(plot, &move);
}

class HoverReadoutTest : public QObject {
  Q_OBJECT
 private slots:
  void listsEveryRunAtTheStepHighestFirst() {
    CurvePlot chart;
    chart.resize(500, 300);
    fathom::plot::CurveFigure f;
    f.curves = {flat("low", 1.0, 100), flat("high", 3.0, 100), flat("middle", 2.0, 100),
                flat("ended early", 2.5, 30)};
    chart.setFigure(f);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    QCustomPlot* plot = chart.plot();
    plot->replot();
    // Near "low" at step 60: every run there is listed, not only the nearest.
    const QPointF at(plot->xAxis->coordToPixel(61), plot->yAxis->coordToPixel(1.0));
    move_to(plot, at);
    QCOMPARE(chart.readoutText(), QStringLiteral("step 60\nhigh   3\nmiddle   2\nlow   1"));
    // The crosshair stands at the step the rows are read at, not at the mouse.
    QCOMPARE(chart.crosshairX(), int(std::lround(plot->xAxis->coordToPixel(60))));
    // The nearest run is bold in the tooltip, which lists the same rows.
    QVERIFY2(QToolTip::text().contains("<b>low</b>"), qPrintable(QToolTip::text()));
    QVERIFY(QToolTip::text().indexOf("high") < QToolTip::text().indexOf("middle"));
    QCOMPARE(chart.width(), 500);  // nothing was laid out for the read-out

    // Hidden curves (unticked in the legend) are not listed; a run is at a step it reached.
    for (int g = 0; g < plot->graphCount(); ++g)
      if (plot->graph(g)->name() == "middle") plot->graph(g)->setVisible(false);
    move_to(plot, QPointF(plot->xAxis->coordToPixel(20), plot->yAxis->coordToPixel(1.0)));
    QCOMPARE(chart.readoutText(), QStringLiteral("step 20\nhigh   3\nended early   2.5\nlow   1"));

    QEvent leave(QEvent::Leave);
    QCoreApplication::sendEvent(plot, &leave);
    QVERIFY(chart.readoutText().isEmpty());
    QCOMPARE(chart.crosshairX(), -1);
  }

  // Outside the axes (over the tick labels) there is no step to read.
  void nothingOutsideTheAxes() {
    CurvePlot chart;
    chart.resize(400, 300);
    fathom::plot::CurveFigure f;
    f.curves = {flat("a", 1.0, 100)};
    chart.setFigure(f);
    chart.plot()->replot();
    const QRect axes = chart.plot()->axisRect()->rect();
    QCOMPARE(chart.readoutAt(QPoint(axes.left() - 5, axes.center().y())), QStringLiteral(" "));
    QVERIFY(chart.readoutAt(axes.center()).startsWith("step "));
  }

  // The legend's tooltip repeats neither the label's line nor the state the entry shows, and a
  // detail that changed while the label and state stayed is what it says.
  void legendTooltipSaysWhatTheEntryDoesNotAndFollowsIt() {
    SharedLegend legend;
    legend.setEntries({{"norm=pre (n=3)", 0, "running 10/100", "members: a, b"}});
    QCOMPARE(legend.item(0)->text(), QStringLiteral("norm=pre (n=3)\nrunning 10/100"));
    QCOMPARE(legend.item(0)->toolTip(), QStringLiteral("norm=pre (n=3)\nmembers: a, b"));
    legend.setEntries({{"norm=pre (n=3)", 0, "running 20/100", "members: a, b, c"}});
    QCOMPARE(legend.count(), 1);
    QCOMPARE(legend.item(0)->text(), QStringLiteral("norm=pre (n=3)\nrunning 20/100"));
    QCOMPARE(legend.item(0)->toolTip(), QStringLiteral("norm=pre (n=3)\nmembers: a, b, c"));
  }
};

FATHOM_GUI_TEST(HoverReadoutTest);

}  // namespace test_hover_readout

#include "test_hover_readout.moc"
