// The Compare tab over a store built here: it shows `fathom export table`'s cells (mean ± std
// over seeds, diverged@step, bold best per column) and exports the same text as the CLI.
#include <qcustomplot.h>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QSettings>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <cstdio>
#include <map>

#include "base/metrics/statistics.h"
#include "db/store.h"
#include "experiments/comparison_table.h"
#include "gui/comparison_view.h"
#include "gui/export_targets.h"
#include "gui/store_session.h"
#include "tests/gui/gui_test_registry.h"

using fathom::db::NewRun;
using fathom::db::Store;

namespace test_comparison_view {

class ComparisonViewTest : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  QString db_;

 private slots:
  void initTestCase() {
    db_ = dir_.filePath("runs.db");
    auto store = Store::open(db_.toStdString());
    for (auto [layers, norm, seed, bleu] : {std::tuple{"6", "post", "1", 20.0},
                                            {"6", "post", "2", 22.0},
                                            {"6", "pre", "1", 18.0},
                                            {"18", "post", "1", -1.0},
                                            {"18", "pre", "1", 19.0}}) {
      NewRun r;
      r.name = std::string("d/") + layers + norm + seed;
      r.sweep = "d";
      const int64_t id = store.create_run(r);
      store.set_tag(id, "axis.model.encoder_layers", layers);
      store.set_tag(id, "axis.model.norm", norm);
      store.set_tag(id, "axis.train.seed", seed);
      if (bleu < 0) {
        store.finish_run(id, "diverged", "nan", 42);
      } else {
        store.set_final_metric(id, "test_bleu", bleu);
        store.finish_run(id, "finished");
      }
    }
  }

  void showsTheExportTablesCells() {
    QString error;
    auto session = fathom::gui::StoreSession::open(db_, &error);
    QVERIFY2(session, qPrintable(error));
    fathom::gui::ComparisonView view;
    view.setSession(session.get());
    view.setRuns(session->store.list_runs());
    QVERIFY(view.choose("d", "axis.model.encoder_layers", "axis.model.norm", "test_bleu"));
    QTableWidget* t = view.table();
    QVERIFY2(t->rowCount() == 2, qPrintable(view.note()->text()));
    QCOMPARE(t->columnCount(), 2);
    // Headers say which axis runs down and which across; the drop-downs show config keys.
    QVERIFY2(t->verticalHeaderItem(0)->text().startsWith(QStringLiteral("encoder_layers = ")),
             qPrintable(t->verticalHeaderItem(0)->text()));
    QVERIFY2(t->horizontalHeaderItem(0)->text().startsWith(QStringLiteral("norm = ")),
             qPrintable(t->horizontalHeaderItem(0)->text()));
    // Sample std of 20 and 22; cells rest on different numbers of runs, so each says its n.
    QCOMPARE(t->item(0, 0)->text(), QString::fromUtf8("21.00 \u00b1 1.41 (n=2)"));
    QCOMPARE(t->item(1, 0)->text(), QStringLiteral("diverged@42"));
    QVERIFY(t->item(0, 0)->font().bold());  // best of the post column
    QVERIFY(t->item(1, 1)->font().bold());  // 19 beats 18 in the pre column
    QVERIFY(!t->item(0, 1)->font().bold());

    // The chart: a bar per column in each row's group; the post column's 6-layer bar is the
    // mean 21 with the 95 % t-interval 12.706 * 1.414 / sqrt(2) = 12.706 (t of 1 degree of
    // freedom); single-seed cells and the diverged one have no whisker.
    QList<QCPBars*> bars;
    QList<QCPErrorBars*> whiskers;
    for (int i = 0; i < view.chart()->plottableCount(); ++i) {
      if (auto* b = qobject_cast<QCPBars*>(view.chart()->plottable(i))) bars << b;
      if (auto* w = qobject_cast<QCPErrorBars*>(view.chart()->plottable(i))) whiskers << w;
    }
    QCOMPARE(bars.size(), 2);
    QCOMPARE(bars[0]->name(), QStringLiteral("norm = post"));
    QCOMPARE(bars[0]->data()->at(0)->value, 21.0);
    QVERIFY(std::isnan(bars[0]->data()->at(1)->value));  // diverged: no bar
    QCOMPARE(whiskers.size(), 2);                        // the post series' and the legend's key
    QVERIFY(std::abs(whiskers[0]->data()->at(0).errorPlus - 12.706) < 1e-3);
    QVERIFY(std::isnan(whiskers[0]->data()->at(1).errorPlus));

    // Best over training: the runs here have no test_bleu curve, so the values stay their final
    // ones, and the note says which value the cells hold.
    view.bestOverTraining()->setChecked(true);
    view.waitForResults();  // read in the view's worker thread
    QCOMPARE(view.table()->item(0, 0)->text(), QString::fromUtf8("21.00 \u00b1 1.41 (n=2)"));
    QVERIFY2(view.shown()->notes.at(0).find("highest value over training") != std::string::npos,
             view.shown()->notes.at(0).c_str());
    view.bestOverTraining()->setChecked(false);
    view.waitForResults();

    const QString path = dir_.filePath("table.tex");
    QVERIFY(view.writeTable(path));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll().toStdString(), fathom::experiments::table_to_latex(*view.shown()));
  }

  // "Test against" offers the table's rows; choosing one gives every other row's cells its
  // Welch p-value, Holm-adjusted over the table's two tests (worked by hand here from the
  // seeds' values), and "(none)" takes them away.
  // Log bars: the value axis turns logarithmic (the table stays as it was), and the choice is
  // remembered as the dashboard's log y is.
  void logBarsAreAToggleThatIsRemembered() {
    QString error;
    auto session = fathom::gui::StoreSession::open(db_, &error);
    QVERIFY2(session, qPrintable(error));
    QSettings settings(dir_.filePath("settings.ini"), QSettings::IniFormat);
    {
      fathom::gui::ComparisonView view;
      view.restoreSettings(settings);
      QVERIFY(!view.logScale()->isChecked());  // linear unless asked
      view.setSession(session.get());
      view.setRuns(session->store.list_runs());
      QVERIFY(view.choose("d", "axis.model.encoder_layers", "axis.model.norm", "test_bleu"));
      QCOMPARE(view.chart()->yAxis->scaleType(), QCPAxis::stLinear);
      // Two rows take no more height than they need; the bars get the rest.
      view.resize(1100, 700);
      view.show();
      QVERIFY(QTest::qWaitForWindowExposed(&view));
      QVERIFY2(view.table()->height() < 160, qPrintable(QString::number(view.table()->height())));
      QVERIFY(view.chart()->height() > 350);
      const QString cell = view.table()->item(0, 0)->text();
      const int bars = view.chart()->plottableCount();
      view.logScale()->setChecked(true);
      QCOMPARE(view.chart()->yAxis->scaleType(), QCPAxis::stLogarithmic);
      QCOMPARE(view.chart()->plottableCount(), bars);  // the same bars, redrawn
      QCOMPARE(view.table()->item(0, 0)->text(), cell);
      // The bars' lowest value (18) stands above the log axis's bottom: bars grow from it.
      QVERIFY(view.chart()->yAxis->range().lower > 0);
      QVERIFY(view.chart()->yAxis->range().lower <= 18);
      view.saveSettings(settings);
    }
    fathom::gui::ComparisonView again;
    again.restoreSettings(settings);
    QVERIFY(again.logScale()->isChecked());
  }

  // A fork sweep's bars are read against their parent: a dashed line at its final value,
  // named in the legend, on screen and in the exported figure; a sweep of runs that are no
  // forks of one run has none.
  void aForkSweepsParentIsALineAcrossItsBars() {
    QTemporaryDir dir;
    const QString db = dir.filePath("forks.db");
    auto store = Store::open(db.toStdString());
    // A finished run with its valid_ppl: in sweep rescue at `lr`, a fork of `parent` if given.
    auto add = [&](const std::string& lr, double ppl, int64_t parent) {
      NewRun r;
      r.name = lr.empty() ? "base" : "rescue/lr=" + lr;
      r.sweep = lr.empty() ? "" : "rescue";
      const int64_t id = store.create_run(r);
      if (!lr.empty()) store.set_tag(id, "axis.train.lr", lr);
      if (parent) {
        store.set_tag(id, "forked_from", std::to_string(parent));
        store.set_tag(id, "forked_at", "300");
      }
      store.set_final_metric(id, "valid_ppl", ppl);
      store.finish_run(id, "finished");
      return id;
    };
    const int64_t parent = add("", 30.0, 0);
    add("0.001", 24.0, parent);
    add("0.003", 26.0, parent);
    QString error;
    auto session = fathom::gui::StoreSession::open(db, &error);
    QVERIFY2(session, qPrintable(error));
    fathom::gui::ComparisonView view;
    view.setSession(session.get());
    view.setRuns(session->store.list_runs());
    QVERIFY(view.choose("rescue", "axis.train.lr", "", "valid_ppl"));
    const QString label = QStringLiteral("parent #%1: 30").arg(parent);  // 4 significant digits
    QCPGraph* line = nullptr;
    for (int i = 0; i < view.chart()->graphCount(); ++i)
      if (view.chart()->graph(i)->name() == label) line = view.chart()->graph(i);
    QVERIFY2(line, "no parent line");
    QCOMPARE(line->data()->at(0)->value, 30.0);
    QVERIFY(view.chart()->yAxis->range().upper >= 30.0);
    const auto exported = fathom::gui::figure_to_export(view.chart());
    QVERIFY(exported);
    const auto& bars = std::get<fathom::plot::BarFigure>(*exported);
    QCOMPARE(bars.references.size(), size_t(1));
    QCOMPARE(bars.references[0].label, label.toStdString());

    add("0.01", 25.0, 0);  // no fork: the sweep is no fork sweep now
    view.setRuns(session->store.list_runs());
    view.waitForResults();
    QVERIFY(view.choose("rescue", "axis.train.lr", "", "valid_ppl"));
    // Three rates now: drawn as a line along them (the rates'), with no parent's line.
    for (int i = 0; i < view.chart()->graphCount(); ++i)
      QVERIFY2(!view.chart()->graph(i)->name().startsWith(QStringLiteral("parent #")),
               qPrintable(view.chart()->graph(i)->name()));
  }

  void testsEveryRowAgainstTheChosenOne() {
    QTemporaryDir dir;
    const QString path = dir.filePath("v.db");
    auto store = Store::open(path.toStdString());
    const std::map<std::string, std::vector<double>> losses{
        {"post", {3.0, 3.2, 3.1}}, {"pre", {2.0, 2.1, 2.3}}, {"peri", {3.0, 3.3, 3.1}}};
    for (const char* norm : {"post", "pre", "peri"})
      for (int seed = 1; seed <= 3; ++seed) {
        NewRun r;
        r.name = std::string("v/") + norm + std::to_string(seed);
        r.sweep = "v";
        const int64_t id = store.create_run(r);
        store.set_tag(id, "axis.model.norm", norm);
        store.set_tag(id, "axis.train.seed", std::to_string(seed));
        store.set_final_metric(id, "valid_loss", losses.at(norm)[seed - 1]);
        store.finish_run(id, "finished");
      }
    QString error;
    auto session = fathom::gui::StoreSession::open(path, &error);
    QVERIFY2(session, qPrintable(error));
    fathom::gui::ComparisonView view;
    view.setSession(session.get());
    view.setRuns(session->store.list_runs());
    QVERIFY(view.choose("v", "model.norm", "", "valid_loss"));
    QCOMPARE(view.versus()->count(), 4);  // (none), post, pre, peri
    QCOMPARE(view.versus()->itemText(1), QStringLiteral("post"));
    view.versus()->setCurrentIndex(1);
    view.waitForResults();
    QCOMPARE(view.shown()->tests, 2);
    const double p_pre = fathom::welch_t_test(losses.at("pre"), losses.at("post"))->p;
    const double p_peri = fathom::welch_t_test(losses.at("peri"), losses.at("post"))->p;
    QVERIFY(p_pre < p_peri);  // pre's is the smaller: doubled; peri's then max(2 p_pre, p_peri)
    char pre_text[32], peri_text[32];
    std::snprintf(pre_text, sizeof pre_text, "(p=%.3f)", std::min(1.0, 2 * p_pre));
    std::snprintf(peri_text, sizeof peri_text, "(p=%.3f)", std::max(2 * p_pre, p_peri));
    QVERIFY2(view.table()->item(1, 0)->text().endsWith(QString::fromLatin1(pre_text)),
             qPrintable(view.table()->item(1, 0)->text() + " vs " + pre_text));
    QVERIFY2(view.table()->item(2, 0)->text().endsWith(QString::fromLatin1(peri_text)),
             qPrintable(view.table()->item(2, 0)->text()));
    QVERIFY(!view.table()->item(0, 0)->text().contains(QStringLiteral("p=")));  // the reference
    view.versus()->setCurrentIndex(0);
    view.waitForResults();
    QVERIFY(!view.table()->item(1, 0)->text().contains(QStringLiteral("p=")));
  }

  // A depth study: the method is a zip group of two keys, and each method ran at two learning
  // rates. The group is offered as one row choice (from the sweep's layout); pooled, a cell
  // mixes both learning rates, and "Best variant" shows the better one, named.
  void zipGroupRowsAndTheBestVariant() {
    const QString db = dir_.filePath("zip.db");
    {
      auto store = Store::open(db.toStdString());
      for (auto [lr, init, seed, ppl] : {std::tuple{"1e-3", "xavier", "1", 3.0},
                                         {"1e-3", "xavier", "2", 3.2},
                                         {"2e-3", "xavier", "1", 2.0},
                                         {"2e-3", "xavier", "2", 2.4},
                                         {"1e-3", "lipschitz", "1", 5.0},
                                         {"1e-3", "lipschitz", "2", 5.0},
                                         {"2e-3", "lipschitz", "1", 6.0},
                                         {"2e-3", "lipschitz", "2", 7.0}}) {
        NewRun r;
        r.name = std::string("z/") + lr + init + seed;
        r.sweep = "z";
        const int64_t id = store.create_run(r);
        store.set_tag(id, "axis.train.lr", lr);
        store.set_tag(id, "axis.model.norm", "post");
        store.set_tag(id, "axis.model.init", init);
        store.set_tag(id, "axis.train.seed", seed);
        store.set_tag(id, "sweep.axes", "train.lr,model.norm+model.init,train.seed");
        store.set_final_metric(id, "valid_ppl", ppl);
        store.set_final_metric(id, "valid_loss", std::log(ppl));  // variants are chosen on it
        store.finish_run(id, "finished");
      }
    }
    QString error;
    auto session = fathom::gui::StoreSession::open(db, &error);
    QVERIFY2(session, qPrintable(error));
    fathom::gui::ComparisonView view;
    view.setSession(session.get());
    view.setRuns(session->store.list_runs());
    view.waitForResults();
    // It opens as the report tables the sweep: its layout's first group by its second.
    QCOMPARE(view.sweepChoice()->currentText(), QStringLiteral("z"));
    QCOMPARE(view.rowsChoice()->currentText(), QStringLiteral("train.lr"));
    QCOMPARE(view.colsChoice()->currentText(), QStringLiteral("model.norm+model.init"));
    QCOMPARE(view.table()->rowCount(), 2);
    QCOMPARE(view.table()->columnCount(), 2);
    QVERIFY(view.choose("z", "axis.model.norm+model.init", "", "valid_ppl"));
    QTableWidget* t = view.table();
    QCOMPARE(t->rowCount(), 2);
    // The header names its axis, each key by its last part.
    QCOMPARE(t->verticalHeaderItem(0)->text(), QStringLiteral("norm/init = post / xavier"));
    // Pooled: mean and sample std of 3.0, 3.2, 2.0, 2.4.
    QCOMPARE(t->item(0, 0)->text(), QString::fromUtf8("2.65 \u00b1 0.55"));
    view.bestVariant()->setChecked(true);
    view.waitForResults();
    QVERIFY(view.table()->item(0, 0));
    QCOMPARE(view.table()->item(0, 0)->text(), QString::fromUtf8("2.20 \u00b1 0.28 [lr=2e-3]"));
    QCOMPARE(view.table()->item(1, 0)->text(), QString::fromUtf8("5.00 \u00b1 0.00 [lr=1e-3]"));
  }

  // fathom-gui --show-sweep names a sweep before the first poll: the tab opens on it, not on the
  // alphabetically first ("a-live", whose runs have no final metric yet), and a sweep with
  // nothing to tabulate says why under its empty table.
  void opensOnTheSweepShownAndSaysWhyASweepHasNoTable() {
    QTemporaryDir dir;
    const QString db = dir.filePath("two.db");
    {
      auto store = Store::open(db.toStdString());
      for (const std::string status : {"running", "queued", "finished", "finished"}) {
        NewRun r;
        const bool live = status != "finished";
        r.sweep = live ? "a-live" : "b-done";
        r.name = r.sweep + "/" + std::to_string(store.list_runs().size());
        const int64_t id = store.create_run(r);
        store.set_tag(id, "axis.model.norm", store.list_runs().size() % 2 ? "post" : "pre");
        if (status == "running") store.mark_running(id, "here", "cpu");
        if (live) continue;
        store.set_final_metric(id, "valid_ppl", 5.0);
        store.finish_run(id, "finished");
      }
    }
    QString error;
    auto session = fathom::gui::StoreSession::open(db, &error);
    QVERIFY2(session, qPrintable(error));
    fathom::gui::ComparisonView view;
    view.setSession(session.get());
    view.showSweep(QStringLiteral("b-done"));  // before any run arrived
    view.setRuns(session->store.list_runs());
    view.waitForResults();
    QCOMPARE(view.sweepChoice()->currentText(), QStringLiteral("b-done"));
    QCOMPARE(view.table()->rowCount(), 2);

    view.showSweep(QStringLiteral("a-live"));
    view.waitForResults();
    QCOMPARE(view.table()->rowCount(), 0);
    QCOMPARE(view.note()->text(),
             QStringLiteral("No run of sweep a-live has a final metric yet (2 of its 2 runs "
                            "queued or running): the table fills in as they finish."));
  }

  // A diverged run's NaN final metric is the same at the next poll: a poll that brings nothing
  // new starts no read (NaN == NaN is false, and it re-read the sweep every second).
  void aPollWithANanMetricAndNothingNewReadsNothing() {
    QTemporaryDir dir;
    const QString db = dir.filePath("nan.db");
    {
      auto store = Store::open(db.toStdString());
      for (const std::string norm : {"pre", "post"}) {
        NewRun r;
        r.sweep = "n";
        r.name = "n/" + norm;
        const int64_t id = store.create_run(r);
        store.set_tag(id, "axis.model.norm", norm);
        store.set_final_metric(id, "valid_loss", norm == "pre" ? 2.0 : std::nan(""));
        store.finish_run(id, norm == "pre" ? "finished" : "diverged");
      }
    }
    QString error;
    auto session = fathom::gui::StoreSession::open(db, &error);
    QVERIFY2(session, qPrintable(error));
    fathom::gui::ComparisonView view;
    view.setSession(session.get());
    const auto runs = session->store.list_runs();
    QVERIFY(std::isnan(runs.at(1).final_metrics.at("valid_loss")));
    view.showRuns(runs, {});
    view.waitForResults();
    view.showRuns(session->store.list_runs(), {});
    QVERIFY(!view.reading());
  }
};

FATHOM_GUI_TEST(ComparisonViewTest);

}  // namespace test_comparison_view

#include "test_comparison_view.moc"
