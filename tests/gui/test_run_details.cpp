// The run page (issue 36): every key stands apart from its value, however long the key
// ("decode_time_s5.98552"); notes are stored with the run; the worker's log, the first test
// translations (each validation's samples, newest first, then the test set's), artifact sizes
// and the config keys another run differs in are shown.
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include "db/store.h"
#include "gui/run_details.h"
#include "tests/gui/gui_test_registry.h"

using fathom::db::NewRun;
using fathom::db::Store;

namespace test_run_details {

class RunDetailsTest : public QObject {
  Q_OBJECT
 private slots:
  void keysAndValuesNeverRunTogether() {
    QTemporaryDir dir;
    auto store = Store::open(dir.filePath("runs.db").toStdString());
    NewRun r;
    r.name = "details";
    const int64_t id = store.create_run(r);
    store.set_final_metric(id, "decode_time_s", 5.98552);
    store.set_final_metric(id, "valid_ppl", 3.5);
    store.set_tag(id, "axis.model.encoder_layers_with_a_long_name", "18");
    store.add_artifact(id, "checkpoint_best", "run-1/best.g1.pt", 200);
    fathom::gui::RunDetailsDialog dialog(store, *store.find_run(std::to_string(id)));
    const QString text =
        dialog.findChild<QPlainTextEdit*>(QStringLiteral("overview"))->toPlainText();
    QVERIFY2(text.contains(QRegularExpression(R"(\n  decode_time_s {2,}5\.986\n)")),
             qPrintable(text));
    QVERIFY(text.contains(QRegularExpression(R"(\n  valid_ppl {2,}3\.5\n)")));
    QVERIFY(text.contains(
        QRegularExpression(R"(\n  axis\.model\.encoder_layers_with_a_long_name {2,}18\n)")));
    QVERIFY(text.contains(QRegularExpression(
        R"(\n  checkpoint_best {2,}run-1/best\.g1\.pt \(update 200\)  \[missing\]\n)")));
    QVERIFY(text.contains(QStringLiteral("\nfinal metrics\n")));
    // One column: every value starts at the same place.
    const qsizetype at = text.indexOf(QStringLiteral("5.986")) -
                         text.lastIndexOf('\n', text.indexOf(QStringLiteral("5.986")));
    const qsizetype at_ppl = text.indexOf(QStringLiteral("3.5\n")) -
                             text.lastIndexOf('\n', text.indexOf(QStringLiteral("3.5\n")));
    QCOMPARE(at, at_ppl);
  }

  void notesLogSamplesAndConfigDiff() {
    QTemporaryDir dir;
    auto store = Store::open(dir.filePath("runs.db").toStdString());
    auto make = [&](const std::string& name, const std::string& config) {
      NewRun r;
      r.name = name;
      r.sweep = "s";
      r.config_json = config;
      return store.create_run(r);
    };
    const int64_t a = make("s/a", R"({"model":{"norm":"pre","d_model":64},"train":{"lr":0.001}})");
    const int64_t b = make("s/b", R"({"model":{"norm":"post","d_model":64},"train":{}})");
    const QString run_dir = dir.filePath("run-1");
    QDir().mkpath(run_dir);
    {
      QFile log(run_dir + "/worker.log");
      QVERIFY(log.open(QIODevice::WriteOnly));
      log.write("worker: run 1 on host\nworker: run 1 finished after 10 updates\n");
      QFile hyp(dir.filePath("test.hyp"));
      QVERIFY(hyp.open(QIODevice::WriteOnly));
      hyp.write("ein Hund\nzwei Katzen\n");
    }
    store.add_artifact(a, "hypotheses", dir.filePath("test.hyp").toStdString(), 10);
    // Validation samples at updates 5 and 10 (the trainer's tags), shown newest first; the
    // tags themselves stay out of the overview.
    store.set_tag(a, "samples.u5",
                  R"([{"source": "a dog", "reference": "ein Hund", "hypothesis": "ein"}])");
    store.set_tag(a, "samples.u10",
                  R"([{"source": "a dog", "reference": "ein Hund", "hypothesis": "ein Hund"}])");
    const auto runs = store.list_runs();
    fathom::gui::RunDetailsDialog dialog(store, *store.find_run(std::to_string(a)), runs,
                                         run_dir.toStdString());
    auto text = [&](const char* name) {
      return dialog.findChild<QPlainTextEdit*>(QString::fromLatin1(name))->toPlainText();
    };
    QVERIFY(text("log").contains("finished after 10 updates"));
    QCOMPARE(text("samples"),
             QStringLiteral("validation at update 10\n  src  a dog\n  ref  ein Hund\n  hyp  ein "
                            "Hund\n\nvalidation at update 5\n  src  a dog\n  ref  ein Hund\n  "
                            "hyp  ein\n\ntest set (first 20 hypotheses)\nein Hund\nzwei Katzen"));
    QVERIFY(!text("overview").contains(QStringLiteral("samples.u")));
    QVERIFY2(text("overview").contains(QRegularExpression(R"(test\.hyp \(update 10\)  \[21 B\])")),
             qPrintable(text("overview")));
    // Against b (the same sweep): norm and lr differ, d_model does not.
    QCOMPARE(text("diff"), QStringLiteral("model.norm: pre -> post\ntrain.lr: 0.001 -> (none)\n"));
    QCOMPARE(fathom::gui::config_diff(R"({"a":1})", R"({"a":1})"), std::string());

    auto* notes = dialog.findChild<QPlainTextEdit*>(QStringLiteral("notes"));
    notes->setPlainText(QStringLiteral("lr too high?"));
    QVERIFY(dialog.saveNotes());
    QCOMPARE(store.tags(a).at("note"), std::string("lr too high?"));
    fathom::gui::RunDetailsDialog again(store, *store.find_run(std::to_string(a)), runs, "");
    QCOMPARE(again.findChild<QPlainTextEdit*>(QStringLiteral("notes"))->toPlainText(),
             QStringLiteral("lr too high?"));
    QVERIFY(again.findChild<QPlainTextEdit*>(QStringLiteral("log"))
                ->toPlainText()
                .startsWith("no worker log"));
    (void)b;
  }

  // The window opens its store read-only (gui/store_session.cpp), and the page saves the note
  // anyway (issue 58 item 1: every Save said "set_tag on a store opened read-only" and wrote
  // that into the note itself, so the next Save stored the error).
  void notesSaveFromAReadOnlyWindow() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("runs.db").toStdString();
    int64_t id = 0;
    {
      auto writer = Store::open(path);
      NewRun r;
      r.name = "noted";
      id = writer.create_run(r);
    }
    auto reader = Store::open(path, fathom::db::OpenMode::ReadOnly);
    fathom::gui::RunDetailsDialog dialog(reader, *reader.find_run(std::to_string(id)));
    auto* notes = dialog.findChild<QPlainTextEdit*>(QStringLiteral("notes"));
    notes->setPlainText(QStringLiteral("diverged at 8e-3: try warmup 8000"));
    QVERIFY(dialog.saveNotes());
    QCOMPARE(notes->toPlainText(), QStringLiteral("diverged at 8e-3: try warmup 8000"));
    QCOMPARE(dialog.findChild<QLabel*>(QStringLiteral("note_status"))->text(),
             QStringLiteral("saved"));
    QCOMPARE(Store::open(path, fathom::db::OpenMode::ReadOnly).tags(id).at("note"),
             std::string("diverged at 8e-3: try warmup 8000"));
  }
};

FATHOM_GUI_TEST(RunDetailsTest);

}  // namespace test_run_details

#include "test_run_details.moc"
