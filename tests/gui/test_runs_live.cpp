// Issue 58 items 3 and 4: the runs table as a live view. A running run shows its progress and
// ETA and its training loss now; the metric columns come in the presentation table's order
// (valid_ppl before decode_time_s and params), after the config columns that tell runs apart --
// the sweep axes until the user chooses; a finished run shows no dead local pid; a sweep's run
// is named by the axes its sweep's runs differ in, its tooltip the whole name. A sweep started from
// the app replaces the old selection; the dashboard remembers log y and colour-by as it does
// smoothing, and keeps a grouping to the store it was chosen for. A run train.patience ended
// shows "finished (early stop)".
#include <QCheckBox>
#include <QComboBox>
#include <QSettings>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>

#include "db/store.h"
#include "gui/dashboard_view.h"
#include "gui/runs_filter.h"
#include "gui/runs_model.h"
#include "gui/runs_view.h"
#include "gui/store_session.h"
#include "tests/gui/gui_test_registry.h"

using fathom::db::NewRun;
using fathom::db::Store;
using fathom::gui::RunsModel;
using fathom::gui::StoreSession;

namespace test_runs_live {

int64_t make_run(Store& store, const std::string& name, const std::string& sweep,
                 const std::string& norm) {
  NewRun r;
  r.name = name;
  r.sweep = sweep;
  const int64_t id = store.create_run(r);
  store.set_tag(id, "axis.model.norm", norm);
  store.set_tag(id, "axis.train.seed", "1");
  return id;
}

int header_column(const RunsModel& model, const QString& header) {
  for (int c = 0; c < model.columnCount(); ++c)
    if (model.headerData(c, Qt::Horizontal, Qt::DisplayRole).toString() == header) return c;
  return -1;
}

class RunsLiveTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("fathom-test");
    QCoreApplication::setApplicationName("runs-live-test");
    QSettings().clear();
  }

  // The user chooses which final metrics show and in what order; each store keeps its own
  // choice, and a store never chosen for shows every metric in the presentation order.
  void metricColumnsAreTheUsersAndKeptPerStore() {
    QTemporaryDir dir;
    const QString a = dir.filePath("a.db"), b = dir.filePath("b.db");
    for (const QString& db : {a, b}) {
      auto store = Store::open(db.toStdString());
      const int64_t id = make_run(store, "s/pre", "s", "pre");
      for (const char* name : {"params", "test_bleu", "valid_ppl"})
        store.set_final_metric(id, name, 2.0);
    }
    QString error;
    fathom::gui::RunsView view;
    auto open = [&](const QString& db) {
      view.setSession(nullptr, {});
      auto session = StoreSession::open(db, &error);
      view.setSession(session.get(), db);
      return session;
    };
    auto order = [&] {
      QStringList out;
      for (const char* name : {"valid_ppl", "test_bleu", "params"})
        if (header_column(*view.model(), name) >= 0) out << name;
      std::sort(out.begin(), out.end(), [&](const QString& x, const QString& y) {
        return header_column(*view.model(), x) < header_column(*view.model(), y);
      });
      return out;
    };
    auto first = open(a);
    QCOMPARE(order(), QStringList({"valid_ppl", "test_bleu", "params"}));
    QCOMPARE(view.model()->availableMetrics(), QStringList({"valid_ppl", "test_bleu", "params"}));
    view.setMetricColumns({"params", "valid_ppl"});
    QCOMPARE(order(), QStringList({"params", "valid_ppl"}));
    auto second = open(b);
    QCOMPARE(order(), QStringList({"valid_ppl", "test_bleu", "params"}));
    auto again = open(a);
    QCOMPARE(order(), QStringList({"params", "valid_ppl"}));
    view.setSession(nullptr, {});
  }

  // Config columns too (issue 58): chosen and ordered per store; a store never chosen for
  // shows its sweep axes, and Restore defaults goes back to them.
  void configColumnsAreChosenOrderedAndKeptPerStore() {
    QTemporaryDir dir;
    const QString a = dir.filePath("a.db"), b = dir.filePath("b.db");
    for (const QString& db : {a, b}) {
      auto store = Store::open(db.toStdString());
      make_run(store, "s/pre", "s", "pre");
    }
    QString error;
    fathom::gui::RunsView view;
    auto open = [&](const QString& db) {
      view.setSession(nullptr, {});
      auto session = StoreSession::open(db, &error);
      view.setSession(session.get(), db);
      return session;
    };
    const QStringList axes{"model.norm", "train.seed"};
    auto first = open(a);
    QCOMPARE(view.configColumns(), axes);
    view.setConfigColumns({"train.seed", "model.d_model", "model.norm"});
    QVERIFY(header_column(*view.model(), "train.seed") <
            header_column(*view.model(), "model.d_model"));
    QVERIFY(header_column(*view.model(), "model.d_model") <
            header_column(*view.model(), "model.norm"));
    auto second = open(b);  // another store: its own axes, not a's choice
    QCOMPARE(view.configColumns(), axes);
    auto again = open(a);
    QCOMPARE(view.configColumns(), QStringList({"train.seed", "model.d_model", "model.norm"}));
    view.resetConfigColumns();
    QCOMPARE(view.configColumns(), axes);
    auto last = open(a);
    QCOMPARE(view.configColumns(), axes);
    view.setSession(nullptr, {});
  }

  void runningRunsShowProgressAndLossAndMetricsComeInOrder() {
    QTemporaryDir dir;
    auto store = Store::open(dir.filePath("runs.db").toStdString());
    NewRun r;
    r.name = "depth/norm=pre,layers=18,seed=1 with a long tail";
    r.config_json = R"({"model":{"norm":"pre"},"train":{"max_updates":300}})";
    const int64_t running = store.create_run(r);
    store.mark_running(running, "host", "cpu");
    store.heartbeat(running, 120);
    r.name = "done";
    const int64_t done = store.create_run(r);
    for (const char* name : {"params", "decode_time_s", "test_bleu", "valid_ppl"})
      store.set_final_metric(done, name, 1.5);

    RunsModel model;
    model.setConfigColumns({"model.norm"});
    model.setRuns(store.list_runs());
    // Config first, then the metrics as the presentation table orders them.
    const int norm = header_column(model, "model.norm"), ppl = header_column(model, "valid_ppl"),
              bleu = header_column(model, "test_bleu"),
              decode = header_column(model, "decode_time_s"),
              params = header_column(model, "params");
    QCOMPARE(norm, RunsModel::FixedCount);
    QVERIFY(norm < ppl && ppl < bleu && bleu < decode && decode < params);

    // 120 of 300 updates: the cell says so (and an ETA once the rate is known), sorts by 120.
    const QModelIndex updates = model.index(0, RunsModel::Updates);
    QVERIFY2(model.data(updates, Qt::DisplayRole).toString().startsWith("120/300 (40%)"),
             qPrintable(model.data(updates, Qt::DisplayRole).toString()));
    QCOMPARE(model.data(updates, RunsModel::SortRole).toLongLong(), 120LL);
    QCOMPARE(model.data(model.index(1, RunsModel::Updates), Qt::DisplayRole).toLongLong(), 0LL);

    // The loss now: for the running run only. With its rate now (1.5 s an update), its ETA:
    // 180 updates left, 4:30.
    model.setCurrentLoss({{running, 4.25}, {done, 3.0}}, {{running, 1.5}});
    QCOMPARE(model.data(model.index(0, RunsModel::LossNow), Qt::DisplayRole).toString(),
             QStringLiteral("4.25"));
    QCOMPARE(model.data(updates, Qt::DisplayRole).toString(),
             QStringLiteral("120/300 (40%), ETA 4:30"));
    QVERIFY(!model.data(model.index(1, RunsModel::LossNow), Qt::DisplayRole).isValid());

    // The whole name on hover.
    QCOMPARE(model.data(model.index(0, RunsModel::Name), Qt::ToolTipRole).toString(),
             QString::fromStdString("depth/norm=pre,layers=18,seed=1 with a long tail"));
  }

  // A local worker's pid is shown while its run runs; once the run ended the process is gone
  // (and its pid may be another's), so none; a Slurm job stays, for sacct.
  void anEndedRunShowsNoDeadPid() {
    const std::map<std::string, std::string> local = {{"worker.pid", "4242"}};
    const std::map<std::string, std::string> slurm = {
        {"worker.launcher", "slurm"}, {"slurm.job", "17_3"}, {"worker.pid", "99"}};
    QCOMPARE(RunsModel::jobShown(local, "running"), QStringLiteral("pid 4242"));
    QVERIFY(RunsModel::jobShown(local, "finished").isEmpty());
    QVERIFY(RunsModel::jobShown(local, "crashed").isEmpty());
    QCOMPARE(RunsModel::jobShown(slurm, "finished"), QStringLiteral("17_3"));
  }

  // A run train.patience ended says so in the status column, and why on hover, as
  // `fathom runs` does; resumed to train on, it is a running run again, and once finished past
  // the stop (the tag rewritten "trained on from update ...") a plain finished one.
  void anEarlyStoppedRunSaysSoUntilAResumeTrainsOn() {
    QTemporaryDir dir;
    const QString db = dir.filePath("runs.db");
    auto store = Store::open(db.toStdString());
    const int64_t early = make_run(store, "s/pre", "s", "pre");
    const int64_t plain = make_run(store, "s/post", "s", "post");
    const std::string why =
        "update 225: 2 validations since update 215 without a valid_loss "
        "below 2.27 (train.patience 2, train.max_updates 400)";
    store.mark_running(early, "host", "cpu");
    store.set_tag(early, "early_stop", why);
    store.finish_run(early, "finished");
    store.mark_running(plain, "host", "cpu");
    store.finish_run(plain, "finished");
    QString error;
    auto session = StoreSession::open(db, &error);
    QVERIFY2(session, qPrintable(error));
    fathom::gui::RunsView view;
    view.setSession(session.get(), db);
    auto status = [&](int row, int role) {
      return view.model()->data(view.model()->index(row, RunsModel::Status), role).toString();
    };
    QCOMPARE(status(0, Qt::DisplayRole), QStringLiteral("finished (early stop)"));
    QCOMPARE(status(0, Qt::ToolTipRole), QString::fromStdString("stopped early: " + why));
    QCOMPARE(status(0, RunsModel::SortRole), QStringLiteral("finished"));  // sorts as finished
    QCOMPARE(status(1, Qt::DisplayRole), QStringLiteral("finished"));

    store.mark_running(early, "host", "cpu");  // resumed with train.patience=0
    view.refresh();
    QCOMPARE(status(0, Qt::DisplayRole), QStringLiteral("running"));
    store.set_tag(early, "early_stop",
                  "trained on from update 225 (train.patience 0) after " + why);
    store.finish_run(early, "finished");
    view.refresh();
    QCOMPARE(status(0, Qt::DisplayRole), QStringLiteral("finished"));
    QVERIFY(!status(0, Qt::ToolTipRole).startsWith(QStringLiteral("stopped early")));
  }

  // The sweep axes are the config columns until the user picks some, which then stay.
  void sweepAxesAreTheColumnsUntilTheUserChooses() {
    QTemporaryDir dir;
    const QString db = dir.filePath("runs.db");
    auto store = Store::open(db.toStdString());
    make_run(store, "s/pre", "s", "pre");
    QString error;
    auto session = StoreSession::open(db, &error);
    QVERIFY2(session, qPrintable(error));
    fathom::gui::RunsView view;
    view.setSession(session.get(), db);
    QCOMPARE(view.configColumns(), QStringList({"model.norm", "train.seed"}));
    QCOMPARE(header_column(*view.model(), "model.norm"), int(RunsModel::FixedCount));
    // A sweep's runs are named by the axes they differ in (the seed is the same here); the
    // whole name is the tooltip. A run alone in its sweep keeps its name.
    make_run(store, "s/post", "s", "post");
    make_run(store, "t/only", "t", "pre");
    view.refresh();
    auto name = [&](int row, int role) {
      return view.model()->data(view.model()->index(row, RunsModel::Name), role).toString();
    };
    QCOMPARE(name(0, Qt::DisplayRole), QStringLiteral("norm=pre"));
    QCOMPARE(name(1, Qt::DisplayRole), QStringLiteral("norm=post"));
    QCOMPARE(name(1, Qt::ToolTipRole), QStringLiteral("s/post"));
    QCOMPARE(name(2, Qt::DisplayRole), QStringLiteral("t/only"));
    view.setConfigColumns({"model.d_model"});
    view.refresh();
    QCOMPARE(view.configColumns(), QStringList({"model.d_model"}));
  }

  // Sweep > Start: the runs selected before go, so the dashboard follows what runs now, and the
  // table shows the new sweep once its runs are in the store.
  void aStartedSweepReplacesTheSelection() {
    QTemporaryDir dir;
    const QString db = dir.filePath("runs.db");
    auto store = Store::open(db.toStdString());
    make_run(store, "old/a", "old", "pre");
    QString error;
    auto session = StoreSession::open(db, &error);
    QVERIFY2(session, qPrintable(error));
    fathom::gui::RunsView view;
    view.setSession(session.get(), db);
    view.selectAll();
    QCOMPARE(view.selectedRuns().size(), size_t(1));
    view.followSweep("new");
    QVERIFY(view.selectedRuns().empty());
    make_run(store, "new/a", "new", "pre");
    make_run(store, "new/b", "new", "post");
    view.refresh();
    QCOMPARE(view.filter()->rowCount(), 2);
    for (int row = 0; row < 2; ++row)
      QCOMPARE(view.filter()->index(row, RunsModel::Sweep).data().toString(), QString("new"));
  }

  // The sweep shown says what is left of it: a run at 0.5 s an update with 900 of its 1,000
  // updates to make and a queued run of 1,000 -> 1,900 updates at 2 a second, 950 s. Before a
  // running run logged two losses it says when it will know; with every run ended, nothing; a
  // run resumed for more updates is counted at its new end.
  void theChosenSweepSaysItsTimeLeft() {
    QTemporaryDir dir;
    const QString db = dir.filePath("runs.db");
    auto store = Store::open(db.toStdString());
    NewRun r;
    r.sweep = "s";
    r.config_json = R"({"train":{"max_updates":1000,"log_every":10}})";
    std::vector<int64_t> ids;
    for (const char* name : {"s/a", "s/b", "s/c"}) {
      r.name = name;
      ids.push_back(store.create_run(r));
    }
    store.mark_running(ids[0], "host", "cpu");
    store.finish_run(ids[0], "finished");
    store.mark_running(ids[1], "host", "cpu");
    store.write_metrics(ids[1], {{10, "train_loss", 3.0, 5.0}});
    store.heartbeat(ids[1], 10);
    QString error;
    auto session = StoreSession::open(db, &error);
    QVERIFY2(session, qPrintable(error));
    fathom::gui::RunsView view;
    view.setSession(session.get(), db);
    QVERIFY(view.sweepNote()->isHidden());  // every sweep shown: no one sweep's line
    view.followSweep("s");
    QTRY_VERIFY(!view.sweepNote()->isHidden());  // read in the worker on the choice, no poll
    view.refresh();
    QVERIFY(!view.sweepNote()->isHidden());
    QCOMPARE(view.sweepNote()->text(),
             QStringLiteral("Sweep s: 1 of 3 runs ended, 1 running, 1 queued; its time left is "
                            "known once a running run has logged two training losses"));
    std::vector<fathom::db::MetricRow> rows;
    for (int step = 20; step <= 100; step += 10)
      rows.push_back({step, "train_loss", 3.0, step * 0.5});
    store.write_metrics(ids[1], rows);
    store.heartbeat(ids[1], 100);
    view.refresh();
    QCOMPARE(view.sweepNote()->text(),
             QStringLiteral("Sweep s: 1 of 3 runs ended, 1 running, 1 queued; about 15:50 left "
                            "at its running runs' pace now (1900 updates to make, the queued runs "
                            "taken as large as those running)"));
    store.finish_run(ids[1], "finished");
    store.cancel_run(ids[2], "test");
    view.refresh();
    QVERIFY(view.sweepNote()->isHidden());
    // Resumed for 2,000 updates (`fathom train --resume --set train.max_updates=2000`): the
    // new config's, not the one read before it ended -- 1,900 left at 0.5 s, 15:50.
    const auto lease = store.mark_running(ids[1], "host", "cpu");
    store.set_config(lease, "name: s/b\n", R"({"train":{"max_updates":2000,"log_every":10}})");
    view.refresh();
    QVERIFY2(view.sweepNote()->text().startsWith(
                 QStringLiteral("Sweep s: 2 of 3 runs ended, 1 running, 0 queued; about 15:50 "
                                "left")),
             qPrintable(view.sweepNote()->text()));
  }

  // A run still "running" in the store whose worker has been silent for ten minutes is lost: it
  // is said apart, its 500 updates left are counted, its pace (10 updates a second) is not --
  // 900 + 500 updates at the live run's 2 a second, 700 s (counting it: 1,400 / 12, 1:57).
  void aLostRunOfTheChosenSweepIsSaidAndNotPaced() {
    QTemporaryDir dir;
    const QString db = dir.filePath("runs.db");
    auto store = Store::open(db.toStdString());
    NewRun r;
    r.name = "s/a";
    r.sweep = "s";
    r.config_json = R"({"train":{"max_updates":1000,"log_every":10}})";
    const int64_t live = store.create_run(r);
    store.mark_running(live, "host", "cpu");
    std::vector<fathom::db::MetricRow> rows;
    for (int step = 10; step <= 100; step += 10)
      rows.push_back({step, "train_loss", 3.0, step * 0.5});
    store.write_metrics(live, rows);
    store.heartbeat(live, 100);
    fathom::db::RunExport lost;
    lost.run.id = live + 1;
    lost.run.name = "s/b";
    lost.run.sweep = "s";
    lost.run.status = "running";
    lost.run.updates = 500;
    lost.run.heartbeat_at = fathom::db::unix_now() - 600;
    lost.run.config_json = r.config_json;
    lost.run.config_yaml = "name: s/b\n";
    for (int step = 410; step <= 500; step += 10)
      lost.metrics.push_back({step, "train_loss", 3.0, step * 0.1});
    store.import_run(lost);
    QString error;
    auto session = StoreSession::open(db, &error);
    QVERIFY2(session, qPrintable(error));
    fathom::gui::RunsView view;
    view.setSession(session.get(), db);
    view.followSweep("s");
    QTRY_VERIFY(!view.sweepNote()->isHidden());
    QCOMPARE(view.sweepNote()->text(),
             QStringLiteral("Sweep s: 0 of 2 runs ended, 1 running, 0 queued; 1 lost (no heartbeat "
                            "for over 3:00, shown crashed), about 11:40 left at its running runs' "
                            "pace now (1400 updates to make, the queued runs taken as large as "
                            "those running)"));
  }

  // Log y and colour-by come back with the next session, as smoothing does; a colour-by axis
  // no run shows yet waits for one (the store opens after the settings are read).
  void theDashboardRemembersLogYAndColourBy() {
    QTemporaryDir dir;
    QSettings settings(dir.filePath("s.ini"), QSettings::IniFormat);
    settings.setValue("dashboard/logY", true);
    settings.setValue("dashboard/colourBy", "axis.model.norm");
    fathom::gui::DashboardView view;
    view.restoreSettings(settings);
    auto* log_y = view.findChild<QCheckBox*>();
    QVERIFY(log_y && log_y->text().contains("Log y"));
    QVERIFY(log_y->isChecked());
    QSettings saved(dir.filePath("t.ini"), QSettings::IniFormat);
    view.saveSettings(saved);
    QCOMPARE(saved.value("dashboard/colourBy").toString(), QStringLiteral("axis.model.norm"));
    QCOMPARE(saved.value("dashboard/logY").toBool(), true);

    const QString db = dir.filePath("runs.db");
    auto store = Store::open(db.toStdString());
    make_run(store, "s/pre", "s", "pre");
    make_run(store, "s/post", "s", "post");
    QString error;
    auto session = StoreSession::open(db, &error);
    QVERIFY2(session, qPrintable(error));
    view.setSession(session.get());
    view.showRuns(session->store.list_runs(), {});
    bool chosen = false;
    for (auto* box : view.findChildren<QComboBox*>())
      chosen = chosen || box->currentText() == QStringLiteral("axis.model.norm");
    QVERIFY(chosen);
  }

  // A grouping chosen for one store is not carried into another (whose runs may lack the
  // key); the same store opened again (a reconnect) keeps it.
  void groupingStaysWithItsStore() {
    QTemporaryDir dir;
    const QString a = dir.filePath("a.db"), b = dir.filePath("b.db");
    {
      auto store = Store::open(a.toStdString());
      make_run(store, "s/pre", "s", "pre");
      Store::open(b.toStdString());
    }
    QString error;
    auto first = StoreSession::open(a, &error);
    QVERIFY2(first, qPrintable(error));
    fathom::gui::DashboardView view;
    view.setSession(first.get());
    view.setGroupBy(QStringLiteral("train.lr"));
    QCOMPARE(view.groupBy(), QStringLiteral("train.lr"));
    view.setSession(nullptr);
    first = StoreSession::open(a, &error);
    view.setSession(first.get());  // reconnected
    QCOMPARE(view.groupBy(), QStringLiteral("train.lr"));
    view.setSession(nullptr);
    auto second = StoreSession::open(b, &error);
    QVERIFY2(second, qPrintable(error));
    view.setSession(second.get());
    QVERIFY(view.groupBy().isEmpty());
  }
};

FATHOM_GUI_TEST(RunsLiveTest);

}  // namespace test_runs_live

#include "test_runs_live.moc"
