// The views at an equal budget ("At: compute 6e14"). The Compare tab: each run's last
// validation inside the budget, as `fathom export table --at` takes it -- a 6-layer and an
// 18-layer model whose ranking at their ends turns around at equal training FLOPs -- the runs
// short of it named under the table, a number that is none said so, "best over training" set
// aside, and the verdicts asked of the command line at the same budget. The LR sensitivity
// tab: the best rate as it stood at the budget, and no grid extension judged there.
#include <qcustomplot.h>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "db/metric_names.h"
#include "db/store.h"
#include "gui/budget_choice.h"
#include "gui/comparison_view.h"
#include "gui/curve_plot.h"
#include "gui/dashboard_view.h"
#include "gui/importance_view.h"
#include "gui/lr_sensitivity_view.h"
#include "gui/main_window.h"
#include "gui/store_session.h"
#include "gui/verdicts_window.h"
#include "tests/gui/gui_test_registry.h"

using fathom::db::NewRun;
using fathom::db::Store;

namespace test_views_at_budget {

class ViewsAtBudgetTest : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  QString db_;

  // One run: valid_loss at initialisation, then it and training FLOPs every 100 updates.
  static void add_run(Store& store, const std::string& layers, const std::string& seed,
                      double flops_per_update, const std::vector<double>& losses,
                      const std::string& sweep = "d", const std::string& axis = "model.layers") {
    NewRun r;
    r.name = sweep + "/" + layers + "-" + seed;
    r.sweep = sweep;
    const int64_t id = store.create_run(r);
    store.set_tag(id, "axis." + axis, layers);
    store.set_tag(id, "axis.train.seed", seed);
    store.set_tag(id, "sweep.axes", axis);
    std::vector<fathom::db::MetricRow> rows;
    rows.emplace_back(0, fathom::db::metric::kValidLoss, 8.0, 0.0);  // l0, at initialisation
    for (size_t i = 0; i < losses.size(); ++i) {
      const int64_t step = 100 * static_cast<int64_t>(i + 1);
      rows.emplace_back(step, fathom::db::metric::kValidLoss, losses[i], 0.0);
      rows.emplace_back(step, fathom::db::metric::kTrainFlops, flops_per_update * step, 0.0);
    }
    store.write_metrics(id, rows);
    store.set_final_metric(id, fathom::db::metric::kValidLoss, losses.back());
    store.finish_run(id, "finished");
  }

 private slots:
  void initTestCase() {
    // The main window below reads and keeps settings: its own, empty ones.
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("fathom-test");
    QCoreApplication::setApplicationName("views-at-budget-test");
    QSettings().clear();
    db_ = dir_.filePath("runs.db");
    auto store = Store::open(db_.toStdString());
    // 6 layers at 1e12 FLOPs an update, 18 at 3e12: the deep model ends lower (2.5 vs 3.0),
    // but at 6e14 FLOPs (update 600 against 200) it stands at 3.5. A third, shallow seed
    // stopped at update 300 (3e14): short of the budget.
    add_run(store, "6", "1", 1e12, {5.0, 4.2, 3.8, 3.4, 3.2, 3.0});
    add_run(store, "6", "2", 1e12, {5.0, 4.2, 3.8, 3.4, 3.2, 3.2});
    add_run(store, "6", "3", 1e12, {5.0, 4.2, 3.8});
    add_run(store, "18", "1", 3e12, {4.4, 3.5, 3.0, 2.8, 2.6, 2.5});
    add_run(store, "18", "2", 3e12, {4.4, 3.7, 3.0, 2.8, 2.6, 2.7});
    // Three rates: 1e-3 ends best (2.0, at the grid's end), 3e-3 is best at update 100.
    add_run(store, "0.001", "1", 1e12, {3.0, 2.0}, "lr", "train.lr");
    add_run(store, "0.003", "1", 1e12, {2.4, 2.5}, "lr", "train.lr");
    add_run(store, "0.01", "1", 1e12, {2.8, 3.5}, "lr", "train.lr");
  }

  void cellsAreTheRunsValuesAtTheBudget() {
    QString error;
    auto session = fathom::gui::StoreSession::open(db_, &error);
    QVERIFY2(session, qPrintable(error));
    fathom::gui::ComparisonView view;
    view.setSession(session.get());
    view.setRuns(session->store.list_runs());
    QVERIFY(view.choose("d", "axis.model.layers", "", "valid_loss"));
    QTableWidget* t = view.table();
    QCOMPARE(t->rowCount(), 2);
    QVERIFY2(t->item(0, 0) && t->item(1, 0), qPrintable(view.note()->text()));
    // At the end: final values (3.0, 3.2, 3.8) and (2.5, 2.7).
    QCOMPARE(t->item(0, 0)->text().left(4), QStringLiteral("3.33"));
    QCOMPARE(t->item(1, 0)->text().left(4), QStringLiteral("2.60"));

    view.budget()->choose(QStringLiteral("compute"), 6e14);
    view.waitForResults();  // read in the view's worker thread
    QVERIFY(!view.bestOverTraining()->isEnabled());
    QCOMPARE(t->item(0, 0)->text().left(4), QStringLiteral("3.10"));  // 3.0 and 3.2 at 600
    QCOMPARE(t->item(1, 0)->text().left(4), QStringLiteral("3.60"));  // 3.5 and 3.7 at 200
    QVERIFY2(view.note()->text().contains(QStringLiteral("last value at compute <= 6e+14 FLOPs")),
             qPrintable(view.note()->text()));
    QVERIFY2(view.note()->text().contains(QStringLiteral("1 run short of compute <= 6e+14")),
             qPrintable(view.note()->text()));
    if (const QByteArray out = qgetenv("FATHOM_SCREENSHOTS"); !out.isEmpty()) {
      view.resize(1100, 700);
      view.show();
      QVERIFY(QTest::qWaitForWindowExposed(&view));
      view.grab().save(QString::fromUtf8(out) + "/compare-at-budget.png");
    }
    // The table exported is the one shown, its notes with it.
    bool named = false;
    for (const auto& n : view.shown()->notes)
      named = named || n.find("short of") != std::string::npos;
    QVERIFY(named);

    // "least": the least any finished run reached -- the shallow seed 3 that stopped at 3e14:
    // update 300 of the shallow model (3.8 each), update 100 of the deep one (4.4 each).
    view.budget()->number()->setText(QStringLiteral("least"));
    QMetaObject::invokeMethod(view.budget()->number(), "editingFinished");
    view.waitForResults();
    QVERIFY2(t->item(0, 0) && t->item(1, 0), qPrintable(view.note()->text()));
    QCOMPARE(t->item(0, 0)->text().left(4), QStringLiteral("3.80"));
    QCOMPARE(t->item(1, 0)->text().left(4), QStringLiteral("4.40"));
    QVERIFY2(view.note()->text().contains(QStringLiteral("3e+14 FLOPs (within 2 %): the least")),
             qPrintable(view.note()->text()));

    // A number that is none: no table, and the note says why.
    view.budget()->number()->setText(QStringLiteral("lots"));
    QMetaObject::invokeMethod(view.budget()->number(), "editingFinished");
    view.waitForResults();
    QCOMPARE(t->rowCount(), 0);
    QVERIFY2(view.note()->text().contains(QStringLiteral("not a number > 0")),
             qPrintable(view.note()->text()));

    // Back at the end: the final values again, best over training offered again.
    view.budget()->choose(QString(), 0);
    view.waitForResults();
    QVERIFY(view.bestOverTraining()->isEnabled());
    QVERIFY2(t->item(1, 0), qPrintable(view.note()->text()));
    QCOMPARE(t->item(1, 0)->text().left(4), QStringLiteral("2.60"));
  }

  // The sweep's tags and the table are read in the view's worker thread: right after the runs
  // arrive, and after a choice, the window has answered, with "Reading sweep d ..." under an
  // empty table; a second choice made before the first read came back wins -- the first's
  // table is never shown nor its budget announced.
  void aChoiceIsReadOffTheUiThreadAndTheLatestWins() {
    QString error;
    auto session = fathom::gui::StoreSession::open(db_, &error);
    QVERIFY2(session, qPrintable(error));
    fathom::gui::ComparisonView view;
    view.setSession(session.get());
    view.setRuns(session->store.list_runs());
    QVERIFY(view.reading());
    QCOMPARE(view.rowsChoice()->count(), 0);  // the axes come with the tags
    QVERIFY2(view.note()->text().startsWith(QStringLiteral("Reading sweep d")),
             qPrintable(view.note()->text()));
    QVERIFY(view.choose("d", "axis.model.layers", "", "valid_loss"));
    std::vector<double> announced;
    connect(&view, &fathom::gui::ComparisonView::budgetRead, this,
            [&](const std::optional<fathom::experiments::Budget>& b) {
              announced.push_back(b ? b->x : -1);
            });
    view.budget()->choose(QStringLiteral("compute"), 6e14);
    QVERIFY(view.reading());
    QCOMPARE(view.table()->rowCount(), 0);
    QVERIFY2(view.note()->text().startsWith(QStringLiteral("Reading sweep d")),
             qPrintable(view.note()->text()));
    view.budget()->number()->setText(QStringLiteral("least"));
    QMetaObject::invokeMethod(view.budget()->number(), "editingFinished");
    view.waitForResults();
    QVERIFY(!view.reading());
    QTableWidget* t = view.table();
    QVERIFY2(t->item(0, 0) && t->item(1, 0), qPrintable(view.note()->text()));
    QCOMPARE(t->item(0, 0)->text().left(4), QStringLiteral("3.80"));  // least's, not 6e14's
    QCOMPARE(t->item(1, 0)->text().left(4), QStringLiteral("4.40"));
    // Only least's budget reached the dashboard (its number found by the read).
    QCOMPARE(announced.back(), 3e14);
    QVERIFY(std::find(announced.begin(), announced.end(), 6e14) == announced.end());
  }

  // The Compare tab's budget on the dashboard's charts of its axis: a dashed line at 6e14
  // FLOPs, at the least budget's number once the table found it (3e14), none at the end or
  // on an update axis.
  void theDashboardDrawsTheCompareTabsBudget() {
    fathom::gui::MainWindow window;
    QVERIFY(window.openDatabase(db_, true));
    fathom::gui::ComparisonView* compare = window.comparison();
    fathom::gui::DashboardView* dashboard = window.dashboard();
    QVERIFY(compare && dashboard);
    dashboard->setXAxis(fathom::plot::XAxis::Compute);
    // valid_loss is not charted by default (valid_ppl is): ticked as a user would.
    QList<QListWidgetItem*> items;
    for (auto* list : dashboard->findChildren<QListWidget*>())
      items << list->findItems(QStringLiteral("valid_loss"), Qt::MatchExactly);
    QCOMPARE(items.size(), 1);
    items[0]->setCheckState(Qt::Checked);
    QTRY_VERIFY(!dashboard->pollPending());
    fathom::gui::CurvePlot* chart = dashboard->chart(QStringLiteral("valid_loss"));
    QVERIFY2(chart, qPrintable(dashboard->shownMetrics().join(",")));
    QCOMPARE(budget_lines(*chart), std::vector<double>{});

    QVERIFY(compare->choose("d", "axis.model.layers", "", "valid_loss"));
    compare->budget()->choose(QStringLiteral("compute"), 6e14);
    compare->waitForResults();
    QVERIFY(dashboard->budget());
    QCOMPARE(budget_lines(*chart), std::vector<double>{6e14});
    QVERIFY(legend_names(*chart).contains(
        QStringLiteral("compute <= 6e+14 FLOPs: the Compare tab's budget")));
    if (const QByteArray out = qgetenv("FATHOM_SCREENSHOTS"); !out.isEmpty()) {
      window.resize(1100, 700);
      window.show();
      if (auto* tabs = window.findChild<QTabWidget*>()) tabs->setCurrentWidget(dashboard);
      QVERIFY(QTest::qWaitForWindowExposed(&window));
      QTest::qWait(200);
      window.grab().save(QString::fromUtf8(out) + "/dashboard-at-budget.png");
    }
    compare->budget()->number()->setText(QStringLiteral("least"));
    QMetaObject::invokeMethod(compare->budget()->number(), "editingFinished");
    compare->waitForResults();
    QCOMPARE(budget_lines(*chart), std::vector<double>{3e14});

    dashboard->setXAxis(fathom::plot::XAxis::Update);  // another axis: no line
    QCOMPARE(budget_lines(*dashboard->chart(QStringLiteral("valid_loss"))), std::vector<double>{});
    dashboard->setXAxis(fathom::plot::XAxis::Compute);
    compare->budget()->choose(QString(), 0);  // at the end: none
    compare->waitForResults();
    QVERIFY(!dashboard->budget());
    QCOMPARE(budget_lines(*dashboard->chart(QStringLiteral("valid_loss"))), std::vector<double>{});
  }

  // A least budget is the cheapest finished run's whole training: a run that finishes
  // cheaper moves the dashboard's line even while the Compare tab is out of sight (its other
  // work waits until it is shown).
  void aLeastBudgetOnTheDashboardFollowsRunsThatFinishWhileCompareIsHidden() {
    const QString db = dir_.filePath("least.db");
    {
      auto store = Store::open(db.toStdString());
      add_run(store, "6", "1", 1e12, {5.0, 4.2, 3.8, 3.4});  // ends at 4e14 FLOPs
      add_run(store, "18", "1", 3e12, {4.4, 3.5});           // ends at 6e14
    }
    fathom::gui::MainWindow window;
    QVERIFY(window.openDatabase(db, true));
    fathom::gui::ComparisonView* compare = window.comparison();
    fathom::gui::DashboardView* dashboard = window.dashboard();
    dashboard->setXAxis(fathom::plot::XAxis::Compute);
    for (auto* list : dashboard->findChildren<QListWidget*>())
      for (auto* item : list->findItems(QStringLiteral("valid_loss"), Qt::MatchExactly))
        item->setCheckState(Qt::Checked);
    QVERIFY(compare->choose("d", "axis.model.layers", "", "valid_loss"));
    compare->budget()->choose(QStringLiteral("compute"), 6e14);
    compare->budget()->number()->setText(QStringLiteral("least"));
    QMetaObject::invokeMethod(compare->budget()->number(), "editingFinished");
    compare->waitForResults();
    QVERIFY(dashboard->budget());
    QCOMPARE(dashboard->budget()->x, 4e14);

    window.resize(1100, 700);
    window.show();
    auto* tabs = window.findChild<QTabWidget*>();
    QVERIFY(tabs);
    tabs->setCurrentWidget(dashboard);
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(!compare->isVisible());
    {
      auto store = Store::open(db.toStdString());
      add_run(store, "6", "2", 1e12, {5.0, 4.2});  // ends at 2e14: the least now
    }
    window.pollNow();
    QTRY_VERIFY(!compare->reading());
    QVERIFY(dashboard->budget());
    QCOMPARE(dashboard->budget()->x, 2e14);
    QTRY_VERIFY(!dashboard->pollPending());
    fathom::gui::CurvePlot* chart = dashboard->chart(QStringLiteral("valid_loss"));
    QVERIFY2(chart, qPrintable(dashboard->shownMetrics().join(",")));
    QCOMPARE(budget_lines(*chart), std::vector<double>{2e14});
  }

  static std::vector<double> budget_lines(fathom::gui::CurvePlot& chart) {
    std::vector<double> at;
    for (int i = 0; i < chart.plot()->itemCount(); ++i)
      if (auto* line = qobject_cast<QCPItemStraightLine*>(chart.plot()->item(i)))
        at.push_back(line->point1->coords().x());
    return at;
  }

  static QStringList legend_names(fathom::gui::CurvePlot& chart) {
    QStringList names;
    for (int i = 0; i < chart.plot()->graphCount(); ++i) names << chart.plot()->graph(i)->name();
    return names;
  }

  void lrSensitivityTakesTheBestRateAtTheBudget() {
    QString error;
    auto session = fathom::gui::StoreSession::open(db_, &error);
    QVERIFY2(session, qPrintable(error));
    fathom::gui::LrSensitivityView view;
    view.setStore(session.get(), db_);
    const auto runs = session->store.list_runs();
    view.showRuns(runs, runs);
    QVERIFY(view.choose("lr", "valid_loss"));
    QVERIFY2(view.shown() && view.shown()->curves.size() == 1, qPrintable(view.noteText()));
    QCOMPARE(view.shown()->curves.at(0).best_lr, 0.001);
    QVERIFY(view.extendButton()->isEnabled());  // its best rate is the grid's lowest

    view.budget()->choose(QStringLiteral("update"), 100);
    view.waitForResults();
    QVERIFY2(view.shown() && view.shown()->curves.size() == 1, qPrintable(view.noteText()));
    QCOMPARE(view.shown()->curves.at(0).best_lr, 0.003);
    QVERIFY(!view.extendButton()->isEnabled());  // the grid's edge is judged at the runs' ends
    QVERIFY2(view.noteText().contains(QStringLiteral("at update <= 100")),
             qPrintable(view.noteText()));
    if (const QByteArray out = qgetenv("FATHOM_SCREENSHOTS"); !out.isEmpty()) {
      view.resize(1100, 700);
      view.show();
      QVERIFY(QTest::qWaitForWindowExposed(&view));
      view.grab().save(QString::fromUtf8(out) + "/lr-sensitivity-at-budget.png");
    }
  }

  // Importance of the rate for the loss at update 100 (3.0, 2.4, 2.8) rather than at the end
  // (2.0, 2.5, 3.5): the variance between the settings' values, by hand.
  void importanceIsOfTheValuesAtTheBudget() {
    QString error;
    auto session = fathom::gui::StoreSession::open(db_, &error);
    QVERIFY2(session, qPrintable(error));
    fathom::gui::ImportanceView view;
    view.setStore(session.get(), db_);
    const auto runs = session->store.list_runs();
    view.showRuns(runs, runs);
    QVERIFY(view.choose("lr", "valid_loss"));
    const double end_mean = (2.0 + 2.5 + 3.5) / 3;
    QVERIFY(std::abs(view.shown()->total_variance -
                     (std::pow(2.0 - end_mean, 2) + std::pow(2.5 - end_mean, 2) +
                      std::pow(3.5 - end_mean, 2)) /
                         3) < 1e-12);
    view.budget()->choose(QStringLiteral("compute"), 1e14);  // update 100 at 1e12 an update
    view.waitForResults();
    QVERIFY2(view.shown(), qPrintable(view.noteText()));
    const double mean = (3.0 + 2.4 + 2.8) / 3;
    QVERIFY(std::abs(view.shown()->total_variance -
                     (std::pow(3.0 - mean, 2) + std::pow(2.4 - mean, 2) + std::pow(2.8 - mean, 2)) /
                         3) < 1e-12);
    QVERIFY2(view.noteText().contains(QStringLiteral("as it stood at compute <= 1e+14 FLOPs")),
             qPrintable(view.noteText()));
    if (const QByteArray out = qgetenv("FATHOM_SCREENSHOTS"); !out.isEmpty()) {
      view.resize(1100, 700);
      view.show();
      QVERIFY(QTest::qWaitForWindowExposed(&view));
      view.grab().save(QString::fromUtf8(out) + "/importance-at-budget.png");
    }
  }

  // The At choice is kept across sessions: a Compare tab restored from it tables the runs at
  // the least budget again (update 300 of the shallow model, 100 of the deep one).
  void theAtChoiceIsKeptAcrossSessions() {
    QTemporaryDir dir;
    QSettings settings(dir.filePath("settings.ini"), QSettings::IniFormat);
    {
      fathom::gui::ComparisonView view;
      view.budget()->choose(QStringLiteral("compute"), 0);
      view.budget()->number()->setText(QStringLiteral("least"));
      view.saveSettings(settings);
    }
    QString error;
    auto session = fathom::gui::StoreSession::open(db_, &error);
    QVERIFY2(session, qPrintable(error));
    fathom::gui::ComparisonView view;
    view.restoreSettings(settings);
    QVERIFY(view.budget()->budget() && view.budget()->budget()->least);
    QCOMPARE(view.budget()->budget()->axis, std::string("compute"));
    QVERIFY(view.budget()->number()->isEnabled());
    view.setSession(session.get());
    view.setRuns(session->store.list_runs());
    QVERIFY(view.choose("d", "axis.model.layers", "", "valid_loss"));
    QTableWidget* t = view.table();
    QVERIFY2(t->item(0, 0) && t->item(1, 0), qPrintable(view.note()->text()));
    QCOMPARE(t->item(0, 0)->text().left(4), QStringLiteral("3.80"));
    QCOMPARE(t->item(1, 0)->text().left(4), QStringLiteral("4.40"));
  }

  // The verdicts at a budget ask the command line for the same budget, and offer no test over
  // the test set (its files are the final model's).
  void verdictsAskForTheSameBudget() {
    fathom::gui::VerdictsRequest request;
    request.sweep = "d";
    request.table.rows = "model.layers";
    request.table.metric = "valid_loss";
    request.table.at = fathom::experiments::Budget{"compute", 6e14};
    request.versus = "6";
    const QStringList args = fathom::gui::verdicts_arguments(request);
    QVERIFY2(args.join(' ').contains(QStringLiteral("--at compute=600000000000000")),
             qPrintable(args.join(' ')));
    QVERIFY(!args.contains(QStringLiteral("--value")));
    // "least" typed in the box: the least any finished run reached, asked of the command line
    // as such, and the Compare tab's table at that budget (the shallow model's 6e14).
    fathom::gui::BudgetChoice choice;
    choice.choose(QStringLiteral("compute"), 0);
    choice.number()->setText(QStringLiteral("least"));
    QVERIFY(choice.budget() && choice.budget()->least);
    QVERIFY(choice.problem().isEmpty());
    request.table.at = choice.budget();
    QVERIFY2(fathom::gui::verdicts_arguments(request).join(' ').contains(
                 QStringLiteral("--at compute=least")),
             qPrintable(fathom::gui::verdicts_arguments(request).join(' ')));
  }
};

FATHOM_GUI_TEST(ViewsAtBudgetTest);

}  // namespace test_views_at_budget

#include "test_views_at_budget.moc"
