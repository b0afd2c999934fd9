// Export from the app: plots to PNG, PDF and SVG (a plot with a figure behind it is re-drawn
// by plot/export.h like `fathom export plot`; one without is saved as shown by plot/save.h),
// tables to CSV, Markdown and LaTeX (experiments/text_table.h, or a view's own renderer), and
// which widget File > Export... picks.
#include <qcustomplot.h>
#include <QFile>
#include <QLineEdit>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QVBoxLayout>
#include <memory>

#include "gui/curve_plot.h"
#include "gui/export_targets.h"
#include "gui/item_roles.h"
#include "gui/results_widgets.h"
#include "plot/figure.h"
#include "plot/size.h"
#include "tests/gui/gui_test_registry.h"

using namespace fathom::gui;

namespace test_export {

QByteArray read(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

fathom::plot::CurveFigure two_curves() {
  fathom::plot::CurveFigure figure;
  for (int run = 0; run < 2; ++run) {
    fathom::plot::Curve c;
    c.label = "run " + std::to_string(run);
    c.metric = "train_loss";
    for (int s = 0; s < 100; ++s) {
      c.step.push_back(s * 10);
      c.value.push_back(5.0 - run - s / 50.0);
    }
    figure.curves.push_back(c);
  }
  return figure;
}

void check_figure_files(QCustomPlot* plot, const QString& dir) {
  QString error;
  QVERIFY2(export_plot(plot, dir + "/f.png", fathom::plot::kColumnSize, &error), qPrintable(error));
  QVERIFY2(export_plot(plot, dir + "/f.pdf", fathom::plot::kPageSize, &error), qPrintable(error));
  QVERIFY2(export_plot(plot, dir + "/f.svg", fathom::plot::kColumnSize, &error), qPrintable(error));
  QVERIFY(read(dir + "/f.png").startsWith("\x89PNG\r\n\x1a\n"));
  const QImage png(dir + "/f.png");
  QCOMPARE(png.width(), 990);  // 3.3 in at 300 dpi
  const QByteArray pdf = read(dir + "/f.pdf");
  QVERIFY(pdf.startsWith("%PDF-"));
  QVERIFY(pdf.trimmed().endsWith("%%EOF"));
  const QByteArray svg = read(dir + "/f.svg");
  QVERIFY(svg.contains("<svg"));
  QVERIFY(svg.trimmed().endsWith("</svg>"));
}

class ExportTest : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;

 private slots:
  void dashboardChartWritesPngPdfSvg() {
    CurvePlot chart;
    chart.resize(500, 300);
    chart.setFigure(two_curves());
    QDir().mkpath(dir_.filePath("curves"));
    check_figure_files(chart.plot(), dir_.filePath("curves"));
    // Re-drawn from the figure (one legend entry per curve), not a grab of the screen.
    QVERIFY(read(dir_.filePath("curves/f.svg")).contains("run 1"));
  }

  void plainPlotIsSavedAsShown() {
    QCustomPlot plot;
    plot.resize(400, 300);
    plot.addGraph()->setData({1, 2, 3}, {3, 1, 2});
    plot.rescaleAxes();
    QDir().mkpath(dir_.filePath("plain"));
    check_figure_files(&plot, dir_.filePath("plain"));
  }

  void badPathsAreErrorsNotCrashes() {
    CurvePlot chart;
    chart.setFigure(two_curves());
    QString error;
    QVERIFY(!export_plot(chart.plot(), dir_.filePath("f.gif"), fathom::plot::kColumnSize, &error));
    QVERIFY(error.contains("f.gif"));
    QTableWidget table(1, 1);
    QVERIFY(!export_table(&table, dir_.filePath("t.xlsx"), &error));
    QVERIFY(!export_table(&table, "/nonexistent-dir/t.csv", &error));
  }

  void tableWritesCsvMarkdownLatex() {
    QTableWidget table(2, 2);
    table.setHorizontalHeaderLabels({"run", "valid_ppl"});
    table.setItem(0, 0, new QTableWidgetItem("post, 6L"));  // a comma: quoted in CSV
    table.setItem(0, 1, new QTableWidgetItem("12.5"));
    table.setItem(1, 0, new QTableWidgetItem("pre_6L"));  // an underscore: escaped in LaTeX
    table.setItem(1, 1, new QTableWidgetItem("11"));
    QString error;
    for (const char* ext : {"csv", "md", "tex"})
      QVERIFY2(export_table(&table, dir_.filePath(QStringLiteral("t.%1").arg(ext)), &error),
               qPrintable(error));
    QCOMPARE(read(dir_.filePath("t.csv")),
             QByteArray("run,valid_ppl\r\n\"post, 6L\",12.5\r\npre_6L,11\r\n"));
    const QByteArray md = read(dir_.filePath("t.md"));
    QVERIFY(md.startsWith("| run | valid\\_ppl |\n|---|---|\n"));
    QVERIFY(md.contains("| pre\\_6L | 11 |"));
    const QByteArray tex = read(dir_.filePath("t.tex"));
    QVERIFY(tex.contains("\\begin{tabular}{ll}\n\\toprule\nrun & valid\\_ppl \\\\\n\\midrule\n"));
    QVERIFY(tex.contains("pre\\_6L & 11 \\\\"));
    QVERIFY(tex.contains("\\bottomrule\n\\end{tabular}"));
  }

  // A CSV is for scripts: a cell shown formatted ("236,032", "2.793 @330") is written as the
  // number its model gives (kRawValueRole); Markdown keeps what the table shows (issue 58
  // item 7).
  void csvHoldsRawNumbersWhereTheModelGivesThem() {
    QTableWidget table(1, 3);
    table.setHorizontalHeaderLabels({"run", "params", "valid_ppl"});
    table.setItem(0, 0, new QTableWidgetItem("a"));
    auto* params = new QTableWidgetItem("236,032");
    params->setData(kRawValueRole, 236032.0);
    table.setItem(0, 1, params);
    auto* best = new QTableWidgetItem("2.793 @330");
    best->setData(kRawValueRole, 2.7931234);
    table.setItem(0, 2, best);
    QString error;
    QVERIFY(export_table(&table, dir_.filePath("raw.csv"), &error));
    QCOMPARE(read(dir_.filePath("raw.csv")),
             QByteArray("run,params,valid_ppl\r\na,236032,2.7931234\r\n"));
    QVERIFY(export_table(&table, dir_.filePath("shown.md"), &error));
    QVERIFY(read(dir_.filePath("shown.md")).contains("| a | 236,032 | 2.793 @330 |"));
  }

  // A zip group's name (its keys joined by '+', 71 characters) heads its column on lines of at
  // most 40 broken after a '+' -- on one line it made the column half a laptop's width for
  // values like "256 / 500 / 20 / 20" -- with the whole name in its tooltip and in exports.
  void aZipGroupsHeaderIsWrappedOnScreenAndWholeInExports() {
    const std::string zip =
        "train.update_tokens+train.max_updates+train.valid_every+train.log_every";
    fathom::experiments::TextTable text;
    text.header = {zip, "train.lr", "reached"};
    text.rows = {{"256 / 500 / 20 / 20", "0.001", "3/3"}};
    std::unique_ptr<QTableWidget> table(make_results_table());
    show_text_table(*table, text);
    const QTableWidgetItem* head = table->horizontalHeaderItem(0);
    QCOMPARE(head->text(), QStringLiteral("train.update_tokens+train.max_updates+\n"
                                          "train.valid_every+train.log_every"));
    QCOMPARE(head->toolTip(), QString::fromStdString(zip));
    QCOMPARE(table->horizontalHeaderItem(1)->text(), QStringLiteral("train.lr"));  // short: as is
    QVERIFY(!table->horizontalHeaderItem(1)->data(kHeaderNameRole).isValid());
    QCOMPARE(table_of_view(table.get()).header, text.header);
    QString error;
    QVERIFY(export_table(table.get(), dir_.filePath("zip.csv"), &error));
    QVERIFY(
        read(dir_.filePath("zip.csv")).startsWith(QByteArray::fromStdString(zip + ",train.lr")));
    // A part longer than a line keeps a line of its own; no '+', nothing to break at.
    QCOMPARE(wrap_joined_name(QStringLiteral("a+bbbbbbbbbb+c"), 4),
             QStringLiteral("a+\nbbbbbbbbbb+\nc"));
    QCOMPARE(wrap_joined_name(QStringLiteral("abcdefgh"), 4), QStringLiteral("abcdefgh"));
  }

  void viewsOwnRendererWins() {
    QTableWidget table(1, 1);
    set_table_source(&table, [](const std::string& format) { return "own " + format + "\n"; });
    QString error;
    QVERIFY(export_table(&table, dir_.filePath("own.tex"), &error));
    QCOMPARE(read(dir_.filePath("own.tex")), QByteArray("own tex\n"));
  }

  void exportPicksTheFocusedWidgetElseThePlot() {
    QWidget tab;
    auto* layout = new QVBoxLayout(&tab);
    auto* edit = new QLineEdit;  // focus on neither a plot nor a table
    layout->addWidget(edit);
    auto* table = new QTableWidget(2, 2);
    auto* chart = new CurvePlot;
    chart->setFigure(two_curves());
    layout->addWidget(table);
    layout->addWidget(chart);
    tab.show();
    QVERIFY(QTest::qWaitForWindowExposed(&tab));
    tab.activateWindow();
    edit->setFocus();
    QTRY_VERIFY(edit->hasFocus());
    QCOMPARE(export_target(&tab), static_cast<QWidget*>(chart->plot()));  // the first plot
    table->setFocus();
    QTRY_COMPARE(export_target(&tab), static_cast<QWidget*>(table));
    QWidget empty;
    QCOMPARE(export_target(&empty), static_cast<QWidget*>(nullptr));
  }
};

FATHOM_GUI_TEST(ExportTest);

}  // namespace test_export

#include "test_export.moc"
