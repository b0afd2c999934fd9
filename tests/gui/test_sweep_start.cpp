// Start in the sweep editor runs `fathom sweep FILE --jobs N` as a separate process, the store
// in its $FATHOM_DB: the runs appear in the store and train to the end while this process only
// watches. Skipped when the `fathom` binary is not built (ctest passes its path in $FATHOM_BIN).
#include <QFile>
#include <QPlainTextEdit>
#include <QTemporaryDir>
#include <QTest>

#include "db/store.h"
#include "gui/fathom_binary.h"
#include "gui/sweep_editor.h"
#include "tests/gui/gui_test_registry.h"

using fathom::db::Store;

namespace test_sweep_start {

class SweepStartTest : public QObject {
  Q_OBJECT
 private slots:
  void startTrainsTheSweepInWorkerProcesses() {
    if (fathom::gui::find_fathom_binary().isEmpty()) QSKIP("fathom binary not built");
    QTemporaryDir dir;
    QFile base(dir.filePath("tiny.yaml"));
    QVERIFY(base.open(QIODevice::WriteOnly));
    // A model and task small enough that a run takes about a second.
    base.write(
        "name: tiny\nmodel: {d_model: 16, heads: 2, d_ff: 32, encoder_layers: 1, decoder_layers: "
        "1}\n"
        "data:\n  task: synthetic\n  synthetic: {vocab: 8, train_size: 64, valid_size: 8, "
        "test_size: 8}\n"
        "train: {max_updates: 3, warmup: 0, valid_every: 3, log_every: 1, threads: 1}\n"
        "eval: {beam: 1}\n");
    base.close();
    const QString sweep = dir.filePath("tiny-sweep.yaml");
    QFile file(sweep);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("name: tiny-sweep\nbase: tiny.yaml\ngrid:\n  model.norm: [post, pre]\n");
    file.close();

    const QString db = dir.filePath("runs.db");
    fathom::gui::SweepEditor editor;
    editor.setDatabasePath(db);
    QVERIFY(editor.openFile(sweep, true));
    QVERIFY2(editor.lastCheck().ok, editor.lastCheck().message.c_str());

    // Dry run: the command line's own listing (it also checks method names) in the output pane.
    editor.dryRun();
    QTRY_VERIFY_WITH_TIMEOUT(editor.outputView()->toPlainText().contains("exited with"), 30000);
    QVERIFY2(editor.outputView()->toPlainText().contains("2 runs"),
             qPrintable(editor.outputView()->toPlainText()));
    QVERIFY(!QFile::exists(db));  // a dry run records nothing

    QVERIFY(editor.startSweep());

    auto finished = [&db] {
      if (!QFile::exists(db)) return 0;
      try {
        int n = 0;
        for (const auto& r :
             Store::open(db.toStdString(), fathom::db::OpenMode::ReadOnly).list_runs("tiny-sweep"))
          n += r.status == "finished";
        return n;
      } catch (const std::exception&) {
        return 0;  // created but not yet migrated by the scheduler
      }
    };
    QTRY_COMPARE_WITH_TIMEOUT(finished(), 2, 90000);
    auto store = Store::open(db.toStdString(), fathom::db::OpenMode::ReadOnly);
    const auto runs = store.list_runs("tiny-sweep");
    QCOMPARE(store.tags(runs.front().id).at("axis.model.norm"), std::string("post"));
    QVERIFY(!store.metric_series(runs.back().id, "train_loss").empty());

    // The sweep's grid grown by one value and started again: resumed, so the two ended runs
    // are kept as they are and only the new one trains (without --resume the sweep is refused).
    editor.setYaml("name: tiny-sweep\nbase: tiny.yaml\ngrid:\n  model.norm: [post, pre, peri]\n");
    QVERIFY(editor.saveFile(sweep));
    QVERIFY(editor.startSweep());
    QVERIFY2(editor.outputView()->toPlainText().contains("resumed sweep tiny-sweep"),
             qPrintable(editor.outputView()->toPlainText()));
    QTRY_COMPARE_WITH_TIMEOUT(finished(), 3, 90000);
    const auto again = Store::open(db.toStdString(), fathom::db::OpenMode::ReadOnly);
    const auto all = again.list_runs("tiny-sweep");
    QCOMPARE(all.size(), size_t{3});
    for (size_t i = 0; i < runs.size(); ++i) {  // the first two untouched
      QCOMPARE(all[i].id, runs[i].id);
      QCOMPARE(all[i].finished_at, runs[i].finished_at);
    }
  }
};

FATHOM_GUI_TEST(SweepStartTest);

}  // namespace test_sweep_start

#include "test_sweep_start.moc"
