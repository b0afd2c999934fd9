// The runs table over a store built here: rows, columns, sorting, filtering, status colours,
// config columns, best-over-training columns, and a poll that changes a status without
// resetting the table.
#include <algorithm>
#include <cmath>

#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include "db/store.h"
#include "gui/number_text.h"
#include "gui/runs_filter.h"
#include "gui/runs_model.h"
#include "gui/runs_view.h"
#include "gui/store_session.h"
#include "tests/gui/gui_test_registry.h"

using fathom::db::NewRun;
using fathom::db::Store;
using fathom::gui::RunsFilter;
using fathom::gui::RunsModel;

namespace test_runs_model {

class RunsModelTest : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  QString db_;
  int64_t a_ = 0, b_ = 0, c_ = 0;

  int column(const RunsModel& model, const QString& header) {
    for (int c = 0; c < model.columnCount(); ++c)
      if (model.headerData(c, Qt::Horizontal, Qt::DisplayRole).toString() == header) return c;
    return -1;
  }

 private slots:
  void initTestCase() {
    db_ = dir_.filePath("runs.db");
    auto store = Store::open(db_.toStdString());
    auto run = [&](const std::string& name, const std::string& sweep, int layers) {
      NewRun r;
      r.name = name;
      r.sweep = sweep;
      r.config_json =
          R"({"model":{"encoder_layers":)" + std::to_string(layers) + R"(,"norm":"post"}})";
      return store.create_run(r);
    };
    a_ = run("single", "", 6);
    b_ = run("depth/layers=18", "depth", 18);
    c_ = run("depth/layers=2", "depth", 2);
    store.mark_running(b_, "host", "cpu");
    store.finish_run(b_, "diverged", "loss is NaN", 40);
    store.mark_running(c_, "host", "cpu");
    store.heartbeat(c_, 120);
    store.finish_run(c_, "finished");
    store.set_final_metric(c_, "valid_ppl", 7.5);
    store.set_final_metric(a_, "valid_ppl", 30.25);
  }

  void rowsAndColumns() {
    auto store = Store::open(db_.toStdString(), fathom::db::OpenMode::ReadOnly);
    RunsModel model;
    model.setRuns(store.list_runs());
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.headerData(0, Qt::Horizontal, Qt::DisplayRole).toString(), QString("id"));
    const int status = column(model, "status"), ppl = column(model, "valid_ppl");
    QVERIFY(status >= 0 && ppl >= 0);
    QCOMPARE(model.data(model.index(1, status), Qt::DisplayRole).toString(),
             QString("diverged @40"));
    QCOMPARE(model.data(model.index(1, column(model, "sweep")), Qt::DisplayRole).toString(),
             QString("depth"));
    QCOMPARE(model.data(model.index(2, column(model, "updates")), Qt::DisplayRole).toLongLong(),
             120LL);
    QCOMPARE(model.data(model.index(2, ppl), Qt::DisplayRole).toString(), QString("7.5"));
    QVERIFY(!model.data(model.index(1, ppl), Qt::DisplayRole).isValid());  // no metric: empty
    QVERIFY(model.data(model.index(1, 0), Qt::ToolTipRole).toString().contains("NaN"));
  }

  // Where each run's worker ran: the host column from the run, the job column from the
  // worker's tags, named by the launcher that started it (a Slurm worker by its task, though it
  // records its pid too; a local one by its pid; nothing when none was recorded).
  void hostAndJobColumns() {
    QCOMPARE(RunsModel::jobOf(
                 {{"worker.launcher", "slurm"}, {"slurm.job", "17_3"}, {"worker.pid", "4242"}}),
             QString("17_3"));
    QCOMPARE(RunsModel::jobOf({{"worker.pid", "4242"}}), QString("pid 4242"));
    QVERIFY(RunsModel::jobOf({{"axis.model.norm", "post"}}).isEmpty());
    auto store = Store::open(db_.toStdString(), fathom::db::OpenMode::ReadOnly);
    RunsModel model;
    model.setRuns(store.list_runs());
    const int host = column(model, "host"), job = column(model, "job");
    QVERIFY(host >= 0 && job >= 0);
    QCOMPARE(model.data(model.index(1, host), Qt::DisplayRole).toString(), QString("host"));
    QVERIFY(model.data(model.index(0, host), Qt::DisplayRole).toString().isEmpty());  // never ran
    QSignalSpy changed(&model, &RunsModel::dataChanged);
    model.setJobs({{b_, QStringLiteral("17_3")}});
    QCOMPARE(changed.count(), 1);
    QCOMPARE(model.data(model.index(1, job), Qt::DisplayRole).toString(), QString("17_3"));
    QVERIFY(model.data(model.index(2, job), Qt::DisplayRole).toString().isEmpty());
    model.setJobs({{b_, QStringLiteral("17_3")}});  // unchanged: no signal
    QCOMPARE(changed.count(), 1);
  }

  void statusColours() {
    auto store = Store::open(db_.toStdString(), fathom::db::OpenMode::ReadOnly);
    RunsModel model;
    model.setRuns(store.list_runs());
    const int status = column(model, "status");
    auto colour = [&](int row) {
      return model.data(model.index(row, status), Qt::ForegroundRole).value<QBrush>().color();
    };
    QCOMPARE(colour(0), RunsModel::statusColor("queued"));
    QCOMPARE(colour(1), RunsModel::statusColor("diverged"));
    QCOMPARE(colour(2), RunsModel::statusColor("finished"));
    QVERIFY(RunsModel::statusColor("diverged") != RunsModel::statusColor("finished"));
    QVERIFY(RunsModel::statusColor("running") != RunsModel::statusColor("queued"));
    QVERIFY(!model.data(model.index(0, 0), Qt::ForegroundRole).isValid());  // only the status cell
  }

  void sortingIsNumericAndFilteringBySweep() {
    auto store = Store::open(db_.toStdString(), fathom::db::OpenMode::ReadOnly);
    RunsModel model;
    model.setRuns(store.list_runs());
    model.setConfigColumns({"model.encoder_layers", "model.norm", "model.missing"});
    const int layers = column(model, "model.encoder_layers");
    QVERIFY(layers >= 0);
    QCOMPARE(model.data(model.index(0, column(model, "model.norm")), Qt::DisplayRole).toString(),
             QString("post"));
    QVERIFY(!model.data(model.index(0, column(model, "model.missing")), Qt::DisplayRole).isValid());

    RunsFilter filter;
    filter.setSourceModel(&model);
    filter.sort(layers, Qt::AscendingOrder);  // 2 < 6 < 18 as numbers, not as text
    QCOMPARE(filter.data(filter.index(0, layers)).toInt(), 2);
    QCOMPARE(filter.data(filter.index(1, layers)).toInt(), 6);
    QCOMPARE(filter.data(filter.index(2, layers)).toInt(), 18);

    filter.setSweep(QString("depth"));
    QCOMPARE(filter.rowCount(), 2);
    filter.setSweep(QString());  // runs outside any sweep
    QCOMPARE(filter.rowCount(), 1);
    filter.setSweep(std::nullopt);
    filter.setText("DIVERGED");
    QCOMPARE(filter.rowCount(), 1);
    QCOMPARE(filter.data(filter.index(0, 0), RunsModel::RunIdRole).toLongLong(),
             static_cast<qlonglong>(b_));
    // The filter language (experiments/run_query.h): config keys by their last part, final
    // metrics, and the note when nothing matches or the text does not parse.
    filter.setText("encoder_layers>=6 and status!=diverged");
    QCOMPARE(filter.rowCount(), 1);
    QCOMPARE(filter.data(filter.index(0, 0), RunsModel::RunIdRole).toLongLong(),
             static_cast<qlonglong>(a_));
    filter.setText("valid_ppl<10");
    QCOMPARE(filter.rowCount(), 1);
    QCOMPARE(filter.statusText(), QStringLiteral("1 of 3 runs shown"));
    filter.setText("test_bleu>5");
    QCOMPARE(filter.rowCount(), 0);
    QCOMPARE(filter.statusText(),
             QStringLiteral("no run matches \"test_bleu>5\" (no run has test_bleu)"));
    // A typo is named with the field it likely meant (issue 58 item 3).
    filter.setText("encodr_layers=6");
    QCOMPARE(filter.rowCount(), 0);
    QCOMPARE(filter.statusText(), QStringLiteral("no run matches \"encodr_layers=6\" (no run has "
                                                 "encodr_layers (did you mean encoder_layers?))"));
    filter.setText("valid_ppl<");  // half typed: the last good filter stays in force
    QCOMPARE(filter.rowCount(), 0);
    QVERIFY2(filter.statusText().contains("expected a value after '<' (column 11)"),
             qPrintable(filter.statusText()));
    filter.setText("");
    QCOMPARE(filter.rowCount(), 3);
  }

  // Escape in the filter clears it; a filter that matches nothing says so above the table.
  void escapeClearsTheFilterAndNoMatchIsSaid() {
    fathom::gui::RunsView view;
    auto store = Store::open(db_.toStdString(), fathom::db::OpenMode::ReadOnly);
    view.model()->setRuns(store.list_runs());
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.filterEdit()->setFocus();
    QTest::keyClicks(view.filterEdit(), "test_bleu>5");
    QCOMPARE(view.filter()->rowCount(), 0);
    QVERIFY(!view.filterNote()->isHidden());
    QVERIFY(view.filterNote()->text().contains("no run has test_bleu"));
    QTest::keyClick(view.filterEdit(), Qt::Key_Escape);
    QVERIFY(view.filterEdit()->text().isEmpty());
    QCOMPARE(view.filter()->rowCount(), 3);
    QVERIFY(view.filterNote()->isHidden());
  }

  // First use: with no store, or an empty one, the view says where runs come from; the hint
  // goes once there are runs.
  void anEmptyWindowSaysWhereRunsComeFrom() {
    fathom::gui::RunsView view;
    QVERIFY(!view.hint()->isHidden());
    QVERIFY(view.hint()->text().contains("File > Open run store"));
    const QString empty = dir_.filePath("empty.db");
    Store::open(empty.toStdString());
    QString error;
    auto session = fathom::gui::StoreSession::open(empty, &error);
    QVERIFY2(session, qPrintable(error));
    view.setSession(session.get(), empty);
    view.refresh();
    QVERIFY(!view.hint()->isHidden());
    QVERIFY2(view.hint()->text().contains("sweep configs/quickstart.yaml"),
             qPrintable(view.hint()->text()));
    QVERIFY(view.hint()->text().contains(empty));
    auto full = fathom::gui::StoreSession::open(db_, &error);
    view.setSession(full.get(), db_);
    view.refresh();
    QVERIFY(view.hint()->isHidden());
    view.setSession(nullptr, QString());
  }

  // Numbers as a table shows them: whole numbers in full, others to four digits.
  void numbersInTheTable() {
    QCOMPARE(fathom::gui::number_text(235780), QStringLiteral("235,780"));
    QCOMPARE(fathom::gui::number_text(2.0189), QStringLiteral("2.019"));
    QCOMPARE(fathom::gui::number_text(0.85016), QStringLiteral("0.8502"));
    QCOMPARE(fathom::gui::number_text(7.5), QStringLiteral("7.5"));
    QCOMPARE(fathom::gui::number_text(12345.6), QStringLiteral("12346"));
    QCOMPARE(fathom::gui::number_text(1.5e-5), QStringLiteral("1.5e-05"));
    QCOMPARE(fathom::gui::number_text(std::nan("")), QStringLiteral("NaN"));
  }

  // "Best": beside valid_ppl, each run's lowest point over training and its update -- 7 @200
  // for a run that ended at 7.5, the last finite point of a run that blew up, nothing for a
  // run without a curve; a run that logs a better point is read again on the next poll.
  void bestColumnsBesideTheFinalValue() {
    {
      auto writer = Store::open(db_.toStdString());
      writer.write_metrics(c_, {{100, "valid_ppl", 8.0, 1.0},
                                {200, "valid_ppl", 7.0, 2.0},
                                {300, "valid_ppl", 7.5, 3.0}});
      writer.write_metrics(b_,
                           {{20, "valid_ppl", 20.0, 1.0}, {40, "valid_ppl", std::nan(""), 2.0}});
    }
    QString error;
    auto session = fathom::gui::StoreSession::open(db_, &error);
    QVERIFY2(session, qPrintable(error));
    fathom::gui::RunsView view;
    view.setSession(session.get(), db_);
    RunsModel& model = *view.model();
    QCOMPARE(column(model, "best valid_ppl"), -1);  // off until asked for

    view.setShowBest(true);
    const int final_ppl = column(model, "valid_ppl"), best = column(model, "best valid_ppl");
    QCOMPARE(best, final_ppl + 1);
    auto row_of = [&](int64_t id) {
      for (int r = 0; r < model.rowCount(); ++r)
        if (model.runAt(r)->id == id) return r;
      return -1;
    };
    auto cell = [&](int64_t id, int role = Qt::DisplayRole) {
      return model.data(model.index(row_of(id), best), role);
    };
    QCOMPARE(cell(c_).toString(), QString("7 @200"));
    QCOMPARE(cell(c_, RunsModel::SortRole).toDouble(), 7.0);
    QCOMPARE(model.data(model.index(row_of(c_), final_ppl), Qt::DisplayRole).toString(),
             QString("7.5"));
    QVERIFY(cell(c_, Qt::ToolTipRole).toString().contains("lowest over training"));
    QCOMPARE(cell(b_).toString(), QString("20 @20"));
    QVERIFY(!cell(a_).isValid());

    {
      auto writer = Store::open(db_.toStdString());
      writer.write_metrics(c_, {{400, "valid_ppl", 6.5, 4.0}});
      writer.heartbeat(c_, 400);
    }
    view.refresh();
    QCOMPARE(cell(c_).toString(), QString("6.5 @400"));
    view.setShowBest(false);
    QCOMPARE(column(model, "best valid_ppl"), -1);
  }

  // A store opened before the window shows (the app's start) fits its columns once the table
  // has its real width: a long name is cut at 30 % of that width, not of a hidden table's.
  void columnsFitTheShownTableNotTheHiddenOne() {
    const QString db = dir_.filePath("long-names.db");
    {
      auto store = Store::open(db.toStdString());
      NewRun r;
      r.name = "depth/" + std::string(12, 'x') +
               ",lr=0.0253984,decoder_layers=24,"
               "connection=residual,hc_streams=0,attention_gate=headwise,seed=3";
      r.config_json = R"({"model":{"encoder_layers":6}})";
      store.create_run(r);
    }
    QString error;
    auto session = fathom::gui::StoreSession::open(db, &error);
    QVERIFY2(session, qPrintable(error));
    fathom::gui::RunsView view;
    view.setSession(session.get(), db);  // hidden: nothing to measure against yet
    view.resize(1000, 300);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QTableView* table = view.table();
    const int cap = static_cast<int>(0.3 * table->viewport()->width());
    QTRY_VERIFY2(table->columnWidth(RunsModel::Name) > 160,
                 qPrintable(QString::number(table->columnWidth(RunsModel::Name))));
    QVERIFY(table->columnWidth(RunsModel::Name) <= cap);
    QCOMPARE(table->columnWidth(RunsModel::Name), cap);  // the name is longer than the cap
  }

  // Scrolled sideways past a dozen columns, the row still says which run it is: the id and
  // name columns stay over the table's left edge, share its selection, and sort it.
  void theIdAndNameStayInViewWhenScrolledSideways() {
    QString error;
    auto session = fathom::gui::StoreSession::open(db_, &error);
    QVERIFY2(session, qPrintable(error));
    fathom::gui::RunsView view;
    view.setSession(session.get(), db_);
    view.setShowBest(true);
    view.resize(420, 300);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QTableView* table = view.table();
    const auto overlays = table->findChildren<QTableView*>();
    QCOMPARE(overlays.size(), 1);
    QTableView* frozen = overlays.front();
    QVERIFY(frozen->selectionModel() == table->selectionModel());
    QVERIFY(!frozen->isColumnHidden(RunsModel::Id) && !frozen->isColumnHidden(RunsModel::Name));
    for (int c = RunsModel::Name + 1; c < table->model()->columnCount(); ++c)
      QVERIFY(frozen->isColumnHidden(c));

    for (int c = 0; c < table->model()->columnCount(); ++c) table->setColumnWidth(c, 150);
    QCoreApplication::processEvents();
    QCOMPARE(frozen->columnWidth(RunsModel::Name), 150);  // widths follow the table's
    QScrollBar* sideways = table->horizontalScrollBar();
    QVERIFY2(sideways->maximum() > 0, "the table must be wider than the window for this test");
    sideways->setValue(sideways->maximum());
    QCoreApplication::processEvents();
    QVERIFY(frozen->isVisible());
    QCOMPARE(frozen->width(),
             table->columnWidth(RunsModel::Id) + table->columnWidth(RunsModel::Name));
    QCOMPARE(frozen->x(), table->frameWidth());
    // The overlay's first row is the table's first row, whatever has scrolled under it.
    const QModelIndex top = frozen->indexAt(QPoint(2, 2));
    QCOMPARE(top.row(), table->indexAt(QPoint(table->viewport()->width() - 2, 2)).row());

    // A click on the overlay's "name" header sorts the table by name.
    const QPoint name_header(frozen->columnWidth(RunsModel::Id) + 4, 4);
    QTest::mouseClick(frozen->horizontalHeader()->viewport(), Qt::LeftButton, {}, name_header);
    QCOMPARE(table->horizontalHeader()->sortIndicatorSection(), static_cast<int>(RunsModel::Name));
  }

  void pollSignalsChangedRowsAndInsertsNewRuns() {
    auto store = Store::open(db_.toStdString(), fathom::db::OpenMode::ReadOnly);
    RunsModel model;
    model.setRuns(store.list_runs());
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    QSignalSpy changes(&model, &QAbstractItemModel::dataChanged);
    {
      auto writer = Store::open(db_.toStdString());  // another connection, as a worker
      writer.mark_running(a_, "host", "cpu");
    }
    model.setRuns(store.list_runs());
    QCOMPARE(resets.count(), 0);
    QCOMPARE(changes.count(), 1);
    QCOMPARE(changes.front().at(0).value<QModelIndex>().row(), 0);
    QCOMPARE(model.runAt(0)->status, std::string("running"));

    // A new run is appended as an inserted row, not a reset.
    QSignalSpy inserts(&model, &QAbstractItemModel::rowsInserted);
    {
      auto writer = Store::open(db_.toStdString());
      NewRun r;
      r.name = "later";
      writer.create_run(r);
    }
    model.setRuns(store.list_runs());
    QCOMPARE(resets.count(), 0);
    QCOMPARE(inserts.count(), 1);
    QCOMPARE(model.rowCount(), 4);
  }

  // The filter keeps each run's answers to the config keys it asked (gui/runs_filter.h), never
  // past a change: a config set again on a poll (a resume with changed settings) and another
  // store's runs under the same ids (a reset) are filtered by their own configs.
  void theFilterFollowsAConfigSetAgainAndAnotherStoresRuns() {
    auto record = [](int64_t id, const std::string& norm, int layers) {
      fathom::db::RunRecord r;
      r.id = id;
      r.name = "run" + std::to_string(id);
      r.status = "running";
      r.config_json = "{\"model\":{\"encoder_layers\":" + std::to_string(layers) + ",\"norm\":\"" +
                      norm + "\"},\"train\":{\"lr\":0.001}}";
      return r;
    };
    auto shownIds = [](const RunsFilter& filter) {
      QList<qlonglong> ids;
      for (int row = 0; row < filter.rowCount(); ++row)
        ids << filter.data(filter.index(row, 0), RunsModel::RunIdRole).toLongLong();
      std::sort(ids.begin(), ids.end());
      return ids;
    };
    RunsModel model;
    model.setRuns({record(1, "post", 6), record(2, "pre", 6), record(3, "pre", 18)});
    RunsFilter filter;
    filter.setSourceModel(&model);
    filter.setText("norm=pre");
    QCOMPARE(shownIds(filter), (QList<qlonglong>{2, 3}));
    filter.setText("norm=pre and encoder_layers>6");  // a field more: read for every run
    QCOMPARE(shownIds(filter), (QList<qlonglong>{3}));
    filter.setText("norm=post");
    QCOMPARE(shownIds(filter), (QList<qlonglong>{1}));

    // Run 2 resumed as Post-LN: the poll changes its row, and the filter reads its config again.
    QSignalSpy changes(&model, &QAbstractItemModel::dataChanged);
    model.setRuns({record(1, "post", 6), record(2, "post", 6), record(3, "pre", 18)});
    QCOMPARE(changes.count(), 1);
    QCOMPARE(shownIds(filter), (QList<qlonglong>{1, 2}));
    filter.setText("norm=pre");
    QCOMPARE(shownIds(filter), (QList<qlonglong>{3}));

    // Another store: ids 1 and 2 again, other configs (a reset of the table).
    model.setRuns({record(1, "pre", 2), record(2, "post", 2)});
    QCOMPARE(shownIds(filter), (QList<qlonglong>{1}));
    filter.setText("encoder_layers=2");
    QCOMPARE(shownIds(filter), (QList<qlonglong>{1, 2}));
  }
};

FATHOM_GUI_TEST(RunsModelTest);

}  // namespace test_runs_model

#include "test_runs_model.moc"
