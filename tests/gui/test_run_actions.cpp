// Cancelling and resuming runs from the runs view. Cancel: queued and running runs become
// cancelled, a running run's worker on this host is stopped through its worker.pid tag, ended
// runs are left alone. Resume: `fathom train --resume ID`, detached (skipped when fathom is
// not built).
#include <unistd.h>

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include "base/config/config_io.h"
#include "db/store.h"
#include "gui/fathom_binary.h"
#include "gui/run_actions.h"
#include "tests/gui/gui_test_registry.h"

using fathom::db::NewRun;
using fathom::db::Store;

namespace test_run_actions {

class RunActionsTest : public QObject {
  Q_OBJECT
 private slots:
  void cancelStopsTheWorkerAndKeepsEndedRuns() {
    QTemporaryDir dir;
    const QString db = dir.filePath("runs.db");
    char host[256] = {0};
    gethostname(host, sizeof host - 1);

    QProcess worker;  // stands in for a `fathom worker`: its command line names fathom
    worker.start("bash", {"-c", "exec -a fathom-worker sleep 60"});
    QVERIFY(worker.waitForStarted());
    // A recorded pid that now belongs to an unrelated process (pids are reused): never killed.
    QProcess stranger;
    stranger.start("sleep", {"60"});
    QVERIFY(stranger.waitForStarted());

    auto store = Store::open(db.toStdString());
    NewRun r;
    r.name = "a";
    const int64_t running = store.create_run(r);
    store.mark_running(running, host, "cpu");
    store.set_tag(running, "worker.pid", std::to_string(worker.processId()));
    const int64_t reused = store.create_run(r);
    store.mark_running(reused, host, "cpu");
    store.set_tag(reused, "worker.pid", std::to_string(stranger.processId()));
    const int64_t queued = store.create_run(r);
    const int64_t done = store.create_run(r);
    store.mark_running(done, host, "cpu");
    store.finish_run(done, "finished");

    QCOMPARE(fathom::gui::cancel_runs(db, store.list_runs()), 3);
    QVERIFY(worker.waitForFinished(5000));
    QCOMPARE(worker.exitStatus(), QProcess::CrashExit);  // SIGTERM
    QVERIFY(!stranger.waitForFinished(500));             // still sleeping
    stranger.kill();
    stranger.waitForFinished();
    QCOMPARE(store.find_run(std::to_string(reused))->status, std::string("cancelled"));
    QCOMPARE(store.find_run(std::to_string(running))->status, std::string("cancelled"));
    QCOMPARE(store.find_run(std::to_string(queued))->status, std::string("cancelled"));
    QCOMPARE(store.find_run(std::to_string(done))->status, std::string("finished"));
  }

  void resumeTrainsTheRunInAWorkerProcess() {
    if (fathom::gui::find_fathom_binary().isEmpty()) QSKIP("fathom binary not built");
    QTemporaryDir dir;
    const QString db = dir.filePath("runs.db");
    // A cancelled run as the store holds it: its full config, no checkpoint yet.
    const auto config = fathom::load_config_string(
        "name: tiny\nmodel: {d_model: 16, heads: 2, d_ff: 32, encoder_layers: 1, decoder_layers: "
        "1}\n"
        "data:\n  task: synthetic\n  synthetic: {vocab: 8, train_size: 64, valid_size: 8, "
        "test_size: 8}\n"
        "train: {max_updates: 3, warmup: 0, valid_every: 3, log_every: 1, threads: 1}\neval: "
        "{beam: 1}\n",
        "tiny", dir.path().toStdString());
    int64_t run = 0;
    {
      auto store = Store::open(db.toStdString());
      NewRun r;
      r.name = "tiny";
      r.config_yaml = fathom::config_to_yaml(config);
      r.config_json = fathom::config_to_json(config).dump();
      run = store.create_run(r);
      store.finish_run(run, "cancelled", "test");
    }
    QString message;
    QVERIFY2(fathom::gui::resume_run(db, run, &message), qPrintable(message));
    auto status = [&] {
      return Store::open(db.toStdString(), fathom::db::OpenMode::ReadOnly)
          .find_run(std::to_string(run))
          ->status;
    };
    QTRY_COMPARE_WITH_TIMEOUT(status(), std::string("finished"), 60000);
    QVERIFY(QFile::exists(fathom::gui::run_artifacts_dir(db, run) + "/worker.log"));
  }

  void artifactsDirMatchesTheCommandLine() {
    QCOMPARE(fathom::gui::run_artifacts_dir("/data/exp.db", 12),
             QString("/data/exp.artifacts/run-12"));
  }
};

FATHOM_GUI_TEST(RunActionsTest);

}  // namespace test_run_actions

#include "test_run_actions.moc"
