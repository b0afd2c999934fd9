// The LR sensitivity tab over a store built here: it lists only sweeps that vary train.lr,
// draws `fathom export plot lr-sensitivity`'s figure (a log rate axis, a curve per method,
// diverged rates crossed) and shows the table of experiments/lr_sensitivity.h.
#include <qcustomplot.h>
#include <QApplication>
#include <QComboBox>
#include <QPointer>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <memory>

#include "db/store.h"
#include "gui/budget_choice.h"
#include "gui/lr_sensitivity_view.h"
#include "gui/store_session.h"
#include "tests/gui/gui_test_registry.h"

using fathom::db::NewRun;
using fathom::db::Store;

namespace test_lr_sensitivity_view {

class LrSensitivityViewTest : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  QString db_;
  std::unique_ptr<fathom::gui::StoreSession> session_;  // fresh for each test (init)
  std::unique_ptr<fathom::gui::LrSensitivityView> view_;

 private slots:
  void initTestCase() {
    db_ = dir_.filePath("runs.db");
    auto store = Store::open(db_.toStdString());
    // Sweep "lr": pre and post at three rates, one seed; post diverges at the largest rate.
    for (auto [norm, lr, loss] : {std::tuple{"pre", "1e-4", 2.0},
                                  {"pre", "1e-3", 1.0},
                                  {"pre", "1e-2", 1.5},
                                  {"post", "1e-4", 2.2},
                                  {"post", "1e-3", 1.4},
                                  {"post", "1e-2", -1.0}}) {
      NewRun r;
      r.name = std::string("lr/") + norm + lr;
      r.sweep = "lr";
      r.config_json = std::string("{\"model\":{\"norm\":\"") + norm +
                      "\"},\"train\":{\"lr\":" + lr +
                      "}}";  // no raw string: moc does not read them
      const int64_t id = store.create_run(r);
      store.set_tag(id, "axis.model.norm", norm);
      store.set_tag(id, "axis.train.lr", lr);
      // The loss at initialization (l0), as the trainer logs it before the first update.
      store.write_metrics(id, {{0, "valid_loss", std::log(10.0), 0.0}});
      if (loss < 0) {
        store.finish_run(id, "diverged", "nan", 7);
      } else {
        store.write_metrics(id, {{100, "valid_loss", loss, 0.0}});  // at the end of training
        store.set_final_metric(id, "valid_loss", loss);
        store.finish_run(id, "finished");
      }
    }
    // Sweep "deep": depth x rate, one seed. 6 layers: 2.0, 1.0, 2.0 at 1e-3, 1e-2, 1e-1 (best
    // 1e-2, the parabola symmetric); 12 layers: 2.0, 1.0, 1.5, the vertex h (y0 - y2) /
    // (2 (y0 - 2 y1 + y2)) = h / 6 right of 1e-2 (h = ln 10): 10^(-2 + 1/6). The slope of ln(best
    // lr) on ln(depth): (ln 10 / 6) / ln 2 = 0.554.
    for (auto [layers, lr, loss] : {std::tuple{"6", "1e-3", 2.0},
                                    {"6", "1e-2", 1.0},
                                    {"6", "1e-1", 2.0},
                                    {"12", "1e-3", 2.0},
                                    {"12", "1e-2", 1.0},
                                    {"12", "1e-1", 1.5}}) {
      NewRun r;
      r.name = std::string("deep/") + layers + lr;
      r.sweep = "deep";
      r.config_json = std::string("{\"model\":{\"layers\":") + layers + "}}";
      const int64_t id = store.create_run(r);
      store.set_tag(id, "axis.model.layers", layers);
      store.set_tag(id, "axis.train.lr", lr);
      store.write_metrics(id, {{0, "valid_loss", 10.0, 0.0}, {100, "valid_loss", loss, 0.0}});
      store.set_final_metric(id, "valid_loss", loss);
      store.finish_run(id, "finished");
    }
    // Sweep "depth": no learning-rate axis, so not offered.
    NewRun r;
    r.name = "depth/6";
    r.sweep = "depth";
    const int64_t id = store.create_run(r);
    store.set_tag(id, "axis.model.encoder_layers", "6");
    store.finish_run(id, "finished");
  }

  void init() {  // before each test: a view on the store, its runs shown
    QString error;
    session_ = fathom::gui::StoreSession::open(db_, &error);
    QVERIFY2(session_, qPrintable(error));
    view_ = std::make_unique<fathom::gui::LrSensitivityView>();
    view_->setStore(session_.get(), db_);
    view_->showRuns(session_->store.list_runs(), {});
    view_->waitForResults();  // the runs' tags say which sweeps vary the rate
  }

  void cleanup() {
    view_.reset();
    session_.reset();
  }

  // Which sweeps vary the rate is read from their runs' tags in the worker thread: showRuns
  // returns before, and the sweeps are offered once they are read.
  void theSweepsThatVaryTheRateAreReadOffTheUiThread() {
    fathom::gui::LrSensitivityView view;
    view.setStore(session_.get(), db_);
    view.showRuns(session_->store.list_runs(), {});
    auto* sweeps = view.findChild<QComboBox*>();
    QVERIFY(view.reading());
    QCOMPARE(sweeps->count(), 0);
    view.waitForResults();
    QCOMPARE(sweeps->count(), 2);  // "deep" and "lr"
    QCOMPARE(sweeps->itemText(0), QStringLiteral("deep"));
    QCOMPARE(sweeps->itemText(1), QStringLiteral("lr"));
  }

  // A running run's progress changes nothing the tab shows at the end of training (only ended
  // runs count there): a poll that brings only that reads nothing. At a budget it does.
  void aRunningRunsProgressIsReadOnlyAtABudget() {
    fathom::gui::LrSensitivityView& view = *view_;
    std::vector<fathom::db::RunRecord> runs = session_->store.list_runs();
    fathom::db::RunRecord& live = runs.front();  // as a poll would bring it while it trained
    live.status = "running";
    live.final_metrics.clear();
    live.updates = 10;
    view.showRuns(runs, {});
    QVERIFY(view.reading());
    view.waitForResults();
    live.updates = 20;
    view.showRuns(runs, {});
    QVERIFY(!view.reading());
    view.budget()->choose(QStringLiteral("update"), 50);
    view.waitForResults();
    live.updates = 60;  // past the budget: where it stood there counts now
    view.showRuns(runs, {});
    QVERIFY(view.reading());
    view.waitForResults();
  }

  void drawsTheCurvesAndTheTable() {
    fathom::gui::LrSensitivityView& view = *view_;
    auto* sweeps = view.findChild<QComboBox*>();
    QVERIFY(sweeps);
    QCOMPARE(sweeps->count(), 2);  // "deep" and "lr"; "depth" varies no rate
    QVERIFY(view.choose(QStringLiteral("lr"), QStringLiteral("valid_loss")));
    const auto& s = *view.shown();
    QCOMPARE(s.curves.size(), size_t{2});
    QCOMPARE(view.plot()->xAxis->scaleType(), QCPAxis::stLogarithmic);
    // Air beyond the end rates (1e-4, 1e-2), in log space: 6 % of the 2 decades, 0.06 decade.
    const QCPRange x = view.plot()->xAxis->range();
    QVERIFY2(std::abs(std::log10(x.lower) - (-4 - 0.06)) < 1e-9,
             qPrintable(QString::number(x.lower)));
    QVERIFY2(std::abs(std::log10(x.upper) - (-2 + 0.06)) < 1e-9,
             qPrintable(QString::number(x.upper)));
    // pre: 2.0, 1.0, 1.5 -> best 1.0 at 1e-3, sensitivity (1.0 + 0 + 0.5) / 3 = 0.5.
    QTableWidget* t = view.table();
    QCOMPARE(t->rowCount(), 2);
    QCOMPARE(t->item(0, 0)->text(), QStringLiteral("norm=pre"));
    QCOMPARE(t->item(0, 1)->text(), QStringLiteral("0.5"));
    QCOMPARE(t->item(0, 2)->text(), QStringLiteral("n/a (1 seed)"));  // nothing to resample
    QCOMPARE(t->item(0, 3)->text(), QStringLiteral("0.001"));
    QCOMPARE(t->item(0, 5)->text(), QStringLiteral("3 of 3"));
    // post diverged at 1e-2: counted at l0 = ln 10 and named in the table.
    QCOMPARE(t->item(1, 6)->text(), QStringLiteral("0.01 (1/1)"));
    bool crossed = false;
    for (int i = 0; i < view.plot()->graphCount(); ++i)
      crossed =
          crossed || view.plot()->graph(i)->scatterStyle().shape() == QCPScatterStyle::ssCross;
    QVERIFY(crossed);
    QVERIFY(view.plot()->legend->itemCount() >= 2);
    // The legend names the curves; their sensitivities are the table's (half the width).
    bool named = false;
    for (int i = 0; i < view.plot()->legend->itemCount(); ++i)
      if (auto* item = qobject_cast<QCPPlottableLegendItem*>(view.plot()->legend->item(i))) {
        const QString name = item->plottable()->name();
        QVERIFY2(!name.contains(QStringLiteral("sensitivity")), qPrintable(name));
        named = named || name == QStringLiteral("norm=pre");
      }
    QVERIFY(named);
  }

  // A resize lays the chart out again for the new size (its legend's place, columns and font
  // are measured against it): the plot's layout is made anew, the curves kept.
  void aResizeLaysTheChartOutAgain() {
    fathom::gui::LrSensitivityView& view = *view_;
    view.resize(500, 400);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(view.choose(QStringLiteral("lr"), QStringLiteral("valid_loss")));
    QApplication::processEvents();
    const QPointer<QCPAxisRect> before = view.plot()->axisRect();
    const int graphs = view.plot()->graphCount();
    view.resize(1400, 800);
    QTRY_VERIFY(before.isNull());  // the old layout's axis rect gone with it
    QCOMPARE(view.plot()->graphCount(), graphs);
    QVERIFY(view.plot()->axisRect()->rect().width() > 500);
  }

  // The Where box shows part of the sweep (the runs filter's language) and the note says
  // which; a filter being typed that is malformed says what is wrong, and shows nothing.
  void whereShowsPartOfTheSweep() {
    fathom::gui::LrSensitivityView& view = *view_;
    QVERIFY(view.choose(QStringLiteral("lr"), QStringLiteral("valid_loss"),
                        QStringLiteral("norm=post")));
    QCOMPARE(view.shown()->curves.size(), size_t{1});
    QCOMPARE(view.table()->rowCount(), 1);
    QCOMPARE(view.table()->item(0, 6)->text(), QStringLiteral("0.01 (1/1)"));  // post's curve
    QVERIFY2(view.noteText().contains(QStringLiteral("only the runs where norm=post (3 of 6)")),
             qPrintable(view.noteText()));
    QVERIFY(
        !view.choose(QStringLiteral("lr"), QStringLiteral("valid_loss"), QStringLiteral("norm=")));
    QVERIFY2(view.noteText().startsWith(QStringLiteral("filter: 'norm=': ")),
             qPrintable(view.noteText()));
    QCOMPARE(view.table()->rowCount(), 0);
    QVERIFY(view.choose(QStringLiteral("lr"), QStringLiteral("valid_loss")));
    QCOMPARE(view.shown()->curves.size(), size_t{2});
  }

  // The Label box names the curves by the axes given (the exports' --label); an axis the
  // sweep lacks says so under the plot and shows nothing.
  void labelNamesTheCurves() {
    fathom::gui::LrSensitivityView& view = *view_;
    QVERIFY(view.choose(QStringLiteral("lr"), QStringLiteral("valid_loss"), {},
                        QStringLiteral("model.norm")));
    QCOMPARE(view.table()->item(0, 0)->text(), QStringLiteral("pre"));
    QCOMPARE(view.table()->item(1, 0)->text(), QStringLiteral("post"));
    QVERIFY(!view.choose(QStringLiteral("lr"), QStringLiteral("valid_loss"), {},
                         QStringLiteral("model.init")));
    QVERIFY2(view.noteText().startsWith(QStringLiteral("label: 'model.init' is not an axis")),
             qPrintable(view.noteText()));
    QCOMPARE(view.table()->rowCount(), 0);
  }

  // "Show: transfer across depth": the best rate per depth (hand-worked above), its slope in
  // the notes; a sweep without a depth axis says so under the plot and shows nothing.
  void transferShowsTheBestRatePerDepth() {
    fathom::gui::LrSensitivityView& view = *view_;
    view.showTransfer(true);
    QVERIFY(view.choose(QStringLiteral("deep"), QStringLiteral("valid_loss")));
    QVERIFY(view.transfer().has_value());
    QCOMPARE(view.table()->rowCount(), 2);
    QCOMPARE(view.table()->item(0, 2)->text(), QStringLiteral("0.01"));
    QCOMPARE(view.table()->item(1, 2)->text(), QStringLiteral("0.0147"));  // 10^(-2 + 1/6)
    QVERIFY2(view.noteText().contains(QStringLiteral("all runs: 0.554")),
             qPrintable(view.noteText()));
    QCOMPARE(view.plot()->yAxis->scaleType(), QCPAxis::stLogarithmic);
    QVERIFY(!view.choose(QStringLiteral("lr"), QStringLiteral("valid_loss")));
    QVERIFY2(view.noteText().startsWith(QStringLiteral("depth: ")), qPrintable(view.noteText()));
    view.showTransfer(false);
    QVERIFY(view.choose(QStringLiteral("lr"), QStringLiteral("valid_loss")));
  }

  // The Range box averages every curve over the rates given (the exports' --range): pre over
  // 1e-3 and 1e-2 is (0 + 0.5) / 2 = 0.25; a malformed range says what is wrong.
  void rangeSetsTheRatesAveragedOver() {
    fathom::gui::LrSensitivityView& view = *view_;
    QVERIFY(view.choose(QStringLiteral("lr"), QStringLiteral("valid_loss"), {}, {},
                        QStringLiteral("1e-3:1e-2")));
    QCOMPARE(view.table()->item(0, 1)->text(), QStringLiteral("0.25"));
    QCOMPARE(view.table()->item(0, 5)->text(), QStringLiteral("2 of 3"));
    QVERIFY2(view.noteText().contains(QStringLiteral("0.001 to 0.01 (--range)")),
             qPrintable(view.noteText()));
    QVERIFY(!view.choose(QStringLiteral("lr"), QStringLiteral("valid_loss"), {}, {},
                         QStringLiteral("1e-2:1e-3")));
    QVERIFY2(view.noteText().startsWith(QStringLiteral("range: '1e-2:1e-3': LO must be below")),
             qPrintable(view.noteText()));
  }
};

FATHOM_GUI_TEST(LrSensitivityViewTest);

}  // namespace test_lr_sensitivity_view

#include "test_lr_sensitivity_view.moc"
