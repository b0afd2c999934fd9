// The Compare tab draws a table whose columns are depths as lines along them, each norm's best
// depth found as `fathom report --at` finds it: the vertex of the parabola in ln(depth) through
// the lowest mean and its two neighbours, worked by hand here; at the grid's end it is no
// optimum. Unticking "Lines" gives the bars back, and the choice is remembered.
#include <qcustomplot.h>
#include <QApplication>
#include <QByteArray>
#include <QCheckBox>
#include <QLabel>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <map>
#include <variant>

#include "db/store.h"
#include "gui/comparison_view.h"
#include "gui/export_targets.h"
#include "gui/store_session.h"
#include "tests/gui/gui_test_registry.h"

using fathom::db::NewRun;
using fathom::db::Store;

namespace test_compare_lines {

// Three seeds a cell, each mean the middle one: post is lowest at 4 layers (means 3.0, 2.5, 2.8
// at 2, 4, 8), pre keeps falling to the grid's deepest, 16.
const std::map<std::string, std::map<int, double>> kMeans = {
    {"post", {{2, 3.0}, {4, 2.5}, {8, 2.8}, {16, 3.3}}},
    {"pre", {{2, 3.5}, {4, 3.1}, {8, 2.9}, {16, 2.7}}}};

class CompareLinesTest : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  QString db_;

  static QList<QCPGraph*> graphs(QCustomPlot* chart) {
    QList<QCPGraph*> out;
    for (int i = 0; i < chart->graphCount(); ++i) out << chart->graph(i);
    return out;
  }
  static int bars(QCustomPlot* chart) {
    int n = 0;
    for (int i = 0; i < chart->plottableCount(); ++i)
      n += qobject_cast<QCPBars*>(chart->plottable(i)) ? 1 : 0;
    return n;
  }

 private slots:
  void initTestCase() {
    db_ = dir_.filePath("runs.db");
    auto store = Store::open(db_.toStdString());
    for (const auto& [norm, means] : kMeans)
      for (const auto& [layers, mean] : means)
        for (int seed = 1; seed <= 3; ++seed) {
          NewRun r;
          r.name = "s/" + norm + std::to_string(layers) + "-" + std::to_string(seed);
          r.sweep = "s";
          const int64_t id = store.create_run(r);
          store.set_tag(id, "axis.model.norm", norm);
          store.set_tag(id, "axis.model.encoder_layers", std::to_string(layers));
          store.set_tag(id, "axis.train.seed", std::to_string(seed));
          store.set_final_metric(id, "valid_loss", mean + 0.1 * (seed - 2));
          store.finish_run(id, "finished");
        }
  }

  void depthColumnsAreLinesWithEachNormsBestDepth() {
    QString error;
    auto session = fathom::gui::StoreSession::open(db_, &error);
    QVERIFY2(session, qPrintable(error));
    QSettings settings(dir_.filePath("settings.ini"), QSettings::IniFormat);
    {
      fathom::gui::ComparisonView view;
      view.restoreSettings(settings);
      QVERIFY(view.lines()->isChecked());  // on unless unticked
      view.setSession(session.get());
      view.setRuns(session->store.list_runs());
      QVERIFY(view.choose("s", "axis.model.norm", "axis.model.encoder_layers", "valid_loss"));
      QCOMPARE(bars(view.chart()), 0);
      QMap<QString, QCPGraph*> by_name;
      for (QCPGraph* g : graphs(view.chart())) by_name[g->name()] = g;
      QVERIFY2(by_name.contains("norm = post") && by_name.contains("norm = pre"),
               qPrintable(QStringList(by_name.keys()).join(" | ")));
      // The post line's points: the cells' means, in order of depth.
      QCPGraph* post = by_name["norm = post"];
      QCOMPARE(post->data()->size(), 4);
      const double xs[] = {2, 4, 8, 16};
      for (int i = 0; i < 4; ++i) {
        QCOMPARE(post->data()->at(i)->key, xs[i]);
        QVERIFY(std::abs(post->data()->at(i)->value - kMeans.at("post").at(int(xs[i]))) < 1e-9);
      }
      // Equal steps h = ln 2 in ln(depth): the vertex is at ln 4 + h (y1 - y3) / 2 (y1 - 2 y2 +
      // y3) = ln 4 + 0.125 ln 2, 4 * 2^0.125 = 4.36 layers.
      const double vertex = 4 * std::pow(2.0, 0.125);
      QCOMPARE(QString::number(vertex, 'g', 3), QStringLiteral("4.36"));
      bool parabola = false;
      for (const QString& name : by_name.keys())
        parabola = parabola || name.startsWith(QStringLiteral("best 4.36"));
      QVERIFY2(parabola, qPrintable(QStringList(by_name.keys()).join(" | ")));
      const QString note = view.note()->text();
      QVERIFY2(note.contains(QStringLiteral("Best encoder_layers")), qPrintable(note));
      QVERIFY2(note.contains(QStringLiteral("norm = post: best encoder_layers 4.36")),
               qPrintable(note));
      // pre is lowest at 16, the grid's deepest: no optimum claimed, the grid's end named.
      QVERIFY2(note.contains(QStringLiteral("norm = pre: ")) && note.contains("grid's end"),
               qPrintable(note));
      QVERIFY(!note.contains(QStringLiteral("norm = pre: best encoder_layers")));
      if (const QByteArray out = qgetenv("FATHOM_SCREENSHOTS"); !out.isEmpty()) {
        view.resize(1100, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.grab().save(QString::fromUtf8(out) + "/compare-lines.png");
      }
      // Exported as drawn.
      const auto exported = fathom::gui::figure_to_export(view.chart());
      QVERIFY(exported && std::holds_alternative<fathom::plot::LineFigure>(*exported));
      QVERIFY(std::get<fathom::plot::LineFigure>(*exported).x.whole_numbers);

      view.lines()->setChecked(false);
      QCOMPARE(bars(view.chart()), 4);  // a bar series per depth, grouped by norm
      const auto as_bars = fathom::gui::figure_to_export(view.chart());
      QVERIFY(as_bars && std::holds_alternative<fathom::plot::BarFigure>(*as_bars));
      view.saveSettings(settings);
    }
    fathom::gui::ComparisonView again;
    again.restoreSettings(settings);
    QVERIFY(!again.lines()->isChecked());
  }

  // Rows of a one-column table that are depths are read along them as one line; a categorical
  // axis stays bars.
  void aOneColumnTableOfDepthsIsOneLine() {
    QString error;
    auto session = fathom::gui::StoreSession::open(db_, &error);
    QVERIFY2(session, qPrintable(error));
    fathom::gui::ComparisonView view;
    view.setSession(session.get());
    view.setRuns(session->store.list_runs());
    QVERIFY(view.choose("s", "axis.model.encoder_layers", "", "valid_loss"));
    QCOMPARE(bars(view.chart()), 0);
    const QList<QCPGraph*> lines = graphs(view.chart());
    QVERIFY(!lines.isEmpty());
    QCOMPARE(lines[0]->name(), QStringLiteral("valid_loss"));
    QCOMPARE(lines[0]->data()->size(), 4);
    QVERIFY2(view.note()->text().contains(QStringLiteral("valid_loss: best encoder_layers")),
             qPrintable(view.note()->text()));

    QVERIFY(view.choose("s", "axis.model.norm", "", "valid_loss"));
    QVERIFY(bars(view.chart()) > 0);
    QVERIFY(!view.note()->text().contains(QStringLiteral("Best ")));
  }
};

FATHOM_GUI_TEST(CompareLinesTest);

}  // namespace test_compare_lines

#include "test_compare_lines.moc"
