// The Time to target tab over a sweep made by McCandlish et al.'s model
// (tests/support/critical_batch_sweep.h: S = 100 (1 + 500 / B) at the fast rate, 1.5 S at the
// slow one, seeds at 0.95 S and 1.05 S). A fresh tab lays the sweep out by the axis that sets
// the batch, then the sweep file's other first axis (the rate) -- though the file varies the
// rate first -- and, with no target typed, reads the least demanding value every
// finished run reached -- computed here from the model -- so every cell is complete. At 2.0 the
// fast rate is every row's best and the fit over them recovers S_min 100 and B_crit 500.
#include <qcustomplot.h>
#include <QLineEdit>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <cmath>

#include "gui/reach_view.h"
#include "gui/store_session.h"
#include "tests/gui/gui_test_registry.h"
#include "tests/support/critical_batch_sweep.h"

namespace test_reach_view {

class ReachViewTest : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  QString db_;

 private slots:
  void initTestCase() {
    db_ = dir_.filePath("runs.db");
    fathom::testing::write_critical_batch_sweep(db_.toStdString());
  }

  void aFreshTabReadsATargetEveryRunReachedLaidOutAsTheSweep() {
    const QString db = dir_.filePath("rate-first.db");
    fathom::testing::write_critical_batch_sweep(db.toStdString(), "b",
                                                "train.lr,data.max_tokens,train.seed");
    auto session = fathom::gui::StoreSession::open(db, nullptr);
    QVERIFY(session);
    fathom::gui::ReachView view;
    view.setStore(session.get(), db);
    view.showRuns(session->store.list_runs(), {});
    view.waitForResults();
    QVERIFY2(view.shown(), qPrintable(view.noteText()));
    // The slowest run's lowest loss, 3 - 1000 / S: the slow rate's 1.05 seed at batch 256.
    const double target = 3 - 1000 / fathom::testing::sweep_run_updates(256, false, 2);
    const auto& cells = view.shown()->cells;
    QCOMPARE(cells.size(), size_t(8));
    QCOMPARE(cells.front().row, std::string("256"));  // rows: the batch; columns: the rate
    QCOMPARE(cells.front().col, std::string("0.001"));
    for (const auto& c : cells) QCOMPARE(c.reached, c.runs);
    QVERIFY2(view.target()->placeholderText().contains(QString::number(target, 'g', 4)),
             qPrintable(view.target()->placeholderText()));
    // That run got there at its last point, update 1000; its twin, along 3 - step / S_1, at
    // 1000 S_1 / S_2.
    const double s1 = fathom::testing::sweep_run_updates(256, false, 1),
                 s2 = fathom::testing::sweep_run_updates(256, false, 2);
    QVERIFY(std::abs(cells.front().updates - (1000 + 1000 * s1 / s2) / 2) < 1e-6);
  }

  void theFitOverTheBestCellsRecoversTheModel() {
    auto session = fathom::gui::StoreSession::open(db_, nullptr);
    QVERIFY(session);
    fathom::gui::ReachView view;
    view.setStore(session.get(), db_);
    view.showRuns(session->store.list_runs(), {});
    QVERIFY2(view.choose("b", "valid_loss", "2.0", "data.max_tokens", "train.lr", true),
             qPrintable(view.noteText()));
    const auto& t = *view.shown();
    QCOMPARE(t.best.size(), size_t(4));
    for (size_t i : t.best) {
      QCOMPARE(t.cells[i].col, std::string("0.002"));
      const double b = std::stod(t.cells[i].row);
      QVERIFY(std::abs(t.cells[i].updates - 100 * (1 + 500 / b)) < 1e-6);
    }
    QVERIFY(view.fit());
    QVERIFY(std::abs(view.fit()->s_min - 100) < 1e-6);
    QVERIFY(std::abs(view.fit()->b_crit - 500) < 1e-6);
    QVERIFY2(view.noteText().contains(QStringLiteral("B_crit 500 target tokens")),
             qPrintable(view.noteText()));
    // Two rates, the best cells, the fit; on log axes.
    QCOMPARE(view.plot()->graphCount(), 4);
    QCOMPARE(view.plot()->xAxis->scaleType(), QCPAxis::stLogarithmic);
    // The table: a row per cell, each row's best in bold.
    QCOMPARE(view.table()->rowCount(), 8);
    for (int r = 0; r < 8; ++r) {
      const bool best = std::find(t.best.begin(), t.best.end(), size_t(r)) != t.best.end();
      QCOMPARE(view.table()->item(r, 3)->font().bold(), best);
    }
    if (const QByteArray out = qgetenv("FATHOM_SCREENSHOTS"); !out.isEmpty()) {
      view.resize(1100, 700);
      view.show();
      QVERIFY(QTest::qWaitForWindowExposed(&view));
      view.grab().save(QString::fromUtf8(out) + "/time-to-target.png");
    }
    // One column: every run of a batch pooled, the rates' spread in its interval.
    QVERIFY(view.choose("b", "valid_loss", "2.0", "data.max_tokens", "", false));
    QCOMPARE(view.shown()->cells.size(), size_t(4));
    QCOMPARE(view.plot()->graphCount(), 1);
    // A target no run reached (the curves fall linearly below 0 by update 1000; the fastest to
    // -5.5): every cell incomplete, nothing drawn but the table.
    QVERIFY(view.choose("b", "valid_loss", "-10", "data.max_tokens", "train.lr", true));
    QCOMPARE(view.plot()->graphCount(), 0);
    QVERIFY2(view.noteText().contains(QStringLiteral("not fitted")), qPrintable(view.noteText()));
    // Not a number: said so, nothing read.
    QVERIFY(!view.choose("b", "valid_loss", "two", "data.max_tokens", "train.lr", false));
    QVERIFY2(view.noteText().contains(QStringLiteral("not a number")), qPrintable(view.noteText()));
  }
};

FATHOM_GUI_TEST(ReachViewTest);

}  // namespace test_reach_view

#include "test_reach_view.moc"
