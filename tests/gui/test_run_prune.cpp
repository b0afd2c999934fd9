// "Prune checkpoints..." of the runs view (gui/prune_dialog.h): the dialog says what the number
// removes -- the kept checkpoints beyond the newest N, their size from the files -- and which
// runs it leaves (a running one), as the number changes; Prune removes those rows and files
// and nothing else; the action reaches the dialog from the runs view's selection. With the
// optimizer state or the fallback resume point chosen, the real `fathom prune` does it (a trained
// run's checkpoints), and a checkpoint_last that does not load keeps its fallback, said.
#include <algorithm>

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include "db/store.h"
#include "gui/fathom_binary.h"
#include "gui/prune_dialog.h"
#include "gui/run_actions.h"
#include "gui/runs_model.h"
#include "gui/runs_view.h"
#include "gui/store_session.h"
#include "tests/gui/gui_test_registry.h"

using fathom::db::NewRun;
using fathom::db::Store;
using namespace fathom::gui;

namespace test_run_prune {

// A run with kept checkpoints at updates 10..40 of 1,000 bytes each and a best checkpoint.
int64_t add_run(Store& store, const QString& db, const std::string& name, bool finished) {
  NewRun r;
  r.name = name;
  const int64_t id = store.create_run(r);
  QDir().mkpath(run_artifacts_dir(db, id));
  for (const char* kind :
       {"checkpoint_10", "checkpoint_20", "checkpoint_30", "checkpoint_40", "checkpoint_best"}) {
    const QString path = run_artifacts_dir(db, id) + "/" + kind + ".g1.pt";
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) return -1;
    f.write(QByteArray(1000, 'x'));
    store.add_artifact(id, kind, path.toStdString(), 0);
  }
  store.mark_running(id, "host", "cpu");
  if (finished) store.finish_run(id, "finished");
  return id;
}

std::vector<std::string> kinds(const QString& db, int64_t run) {
  std::vector<std::string> out;
  for (const auto& a : Store::open(db.toStdString()).artifacts(run)) out.push_back(a.kind);
  return out;
}

class RunPruneTest : public QObject {
  Q_OBJECT
 private slots:
  void theDialogSaysWhatGoesAndPrunesOnlyThat() {
    QTemporaryDir dir;
    const QString db = dir.filePath("runs.db");
    auto store = Store::open(db.toStdString());
    const int64_t done = add_run(store, db, "done", true);
    const int64_t live = add_run(store, db, "live", false);
    QVERIFY(done > 0 && live > 0);
    PruneDialog dialog(
        store, db, {*store.find_run(std::to_string(done)), *store.find_run(std::to_string(live))});
    dialog.keepBox()->setValue(1);
    const QString text = dialog.summary()->text();
    QVERIFY2(text.contains("Removes 3 kept checkpoint(s) of 1 run(s): 2.9 KiB"), qPrintable(text));
    QVERIFY2(text.contains("#2 live: it is running"), qPrintable(text));
    QVERIFY(dialog.pruneButton()->isEnabled());
    dialog.keepBox()->setValue(4);
    QVERIFY2(dialog.summary()->text().startsWith("Nothing to remove."),
             qPrintable(dialog.summary()->text()));
    QVERIFY(!dialog.pruneButton()->isEnabled());

    dialog.keepBox()->setValue(2);
    QStringList errors;
    const QString said = dialog.prune(&errors);
    QVERIFY2(errors.isEmpty(), qPrintable(errors.join('\n')));
    QCOMPARE(said, QStringLiteral("freed 2.0 KiB: 2 kept checkpoint(s)"));  // 2,000 bytes
    QCOMPARE(kinds(db, done),
             (std::vector<std::string>{"checkpoint_30", "checkpoint_40", "checkpoint_best"}));
    QVERIFY(!QFile::exists(run_artifacts_dir(db, done) + "/checkpoint_10.g1.pt"));
    QVERIFY(QFile::exists(run_artifacts_dir(db, done) + "/checkpoint_30.g1.pt"));
    QVERIFY(QFile::exists(run_artifacts_dir(db, done) + "/checkpoint_best.g1.pt"));
    QCOMPARE(kinds(db, live).size(), size_t(5));  // the running run is untouched
  }

  void theOptimizerStateAndTheFallbackGoThroughTheCommandLine() {
    if (find_fathom_binary().isEmpty()) QSKIP("fathom binary not built ($FATHOM_BIN)");
    QTemporaryDir dir;
    const QString db = dir.filePath("runs.db");
    QFile config(dir.filePath("tiny.yaml"));
    QVERIFY(config.open(QIODevice::WriteOnly));
    config.write(
        "name: tiny\ndevice: cpu\n"
        "model: {d_model: 16, heads: 2, d_ff: 32, encoder_layers: 1, decoder_layers: 1}\n"
        "data: {task: synthetic, max_tokens: 256,\n"
        "       synthetic: {vocab: 8, train_size: 200, valid_size: 10, test_size: 5}}\n"
        "train: {lr: 0.005, max_updates: 12, valid_every: 4, log_every: 4, threads: 1,\n"
        "        keep_checkpoint_every: 4}\neval: {beam: 1}\n");
    config.close();
    QProcess train;
    train.setProcessEnvironment(fathom_environment(db));
    train.start(find_fathom_binary(), {"train", config.fileName(), "--no-progress"});
    QVERIFY(train.waitForFinished(120000));
    QVERIFY2(train.exitCode() == 0, train.readAllStandardError().constData());
    auto store = Store::open(db.toStdString());
    const int64_t bad = add_run(store, db, "bad", true);  // files that are no checkpoints
    for (const char* kind : {"checkpoint_last", "checkpoint_previous"}) {
      QFile garbage(run_artifacts_dir(db, bad) + "/" + kind + ".g1.pt");
      QVERIFY(garbage.open(QIODevice::WriteOnly) && garbage.write("not a checkpoint") > 0);
      store.add_artifact(bad, kind, garbage.fileName().toStdString(), 0);
    }
    const auto before = kinds(db, 1);
    QVERIFY(std::count(before.begin(), before.end(), "checkpoint_previous") == 1);

    PruneDialog dialog(store, db, {*store.find_run("1"), *store.find_run(std::to_string(bad))});
    dialog.keepBox()->setValue(4);  // every kept checkpoint stays
    QVERIFY(!dialog.pruneButton()->isEnabled());
    dialog.modelOnlyBox()->setChecked(true);
    dialog.previousBox()->setChecked(true);
    const QString text = dialog.summary()->text();
    QVERIFY2(text.contains("Removes the fallback resume point of 2 run(s)"), qPrintable(text));
    QVERIFY2(text.contains("Rewrites 7 kept checkpoint(s) without the optimizer state"),
             qPrintable(text));  // the trained run's 3 and the stored run's 4
    QCOMPARE(dialog.commandArguments(),
             (QStringList{"prune", "1", QString::number(bad), "--keep", "4", "--model-only",
                          "--previous", "--yes", "--json"}));
    QStringList errors;
    const QString said = dialog.prune(&errors);
    QVERIFY2(said.contains("removed, 3 rewritten without the optimizer state, 1 fallback"),
             qPrintable(said));
    std::vector<std::string> expected;
    for (const auto& k : before)
      if (k != "checkpoint_previous") expected.push_back(k);
    QCOMPARE(kinds(db, 1), expected);
    for (const auto& a : Store::open(db.toStdString()).artifacts(1))
      if (a.kind == "checkpoint_4")
        QVERIFY2(a.path.find(".model.g") != std::string::npos, a.path.c_str());
    // The stored run: its checkpoint_last does not load, so its fallback stays, said; its "kept
    // checkpoints" hold no optimizer state to drop (no checkpoints at all): left as they are.
    QVERIFY2(errors.join('\n').contains("does not load"), qPrintable(errors.join('\n')));
    QCOMPARE(kinds(db, bad).size(), size_t(7));
  }

  void theRunsViewOpensItForTheSelection() {
    QTemporaryDir dir;
    const QString db = dir.filePath("runs.db");
    int64_t done = 0;
    {
      auto store = Store::open(db.toStdString());
      done = add_run(store, db, "done", true);
    }
    QString error;
    auto session = StoreSession::open(db, &error);
    QVERIFY2(session, qPrintable(error));
    RunsView view;
    view.setSession(session.get(), db);
    QAction* prune = nullptr;
    for (QAction* a : view.runActions())
      if (a->text().contains("Prune")) prune = a;
    QVERIFY(prune);
    QVERIFY(!prune->isEnabled());  // nothing selected
    view.table()->selectRow(0);
    QVERIFY(prune->isEnabled());
    bool seen = false;
    QTimer::singleShot(0, [&seen] {  // Prune with the default: the newest one stays
      auto* d = qobject_cast<PruneDialog*>(QApplication::activeModalWidget());
      if (!d) return;
      seen = true;
      d->pruneButton()->click();
    });
    prune->trigger();
    QVERIFY(seen);
    QCOMPARE(kinds(db, done), (std::vector<std::string>{"checkpoint_40", "checkpoint_best"}));
  }
};

FATHOM_GUI_TEST(RunPruneTest);

}  // namespace test_run_prune

#include "test_run_prune.moc"
