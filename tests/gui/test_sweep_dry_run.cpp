// A dry run checks the sweep as it stands in the editor without saving anything: an unsaved
// sweep and unsaved edits go through a temporary copy (no save dialog, the file on disk left
// as it was), errors name the sweep and not the copy, and the output of a dry run is marked
// out of date as soon as the sweep is edited. Skipped when the `fathom` binary is not built.
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QPlainTextEdit>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include "gui/fathom_binary.h"
#include "gui/sweep_editor.h"
#include "tests/gui/gui_test_registry.h"

using fathom::gui::SweepEditor;

namespace test_sweep_dry_run {

QByteArray read_all(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

class SweepDryRunTest : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  QString base_;
  bool dialog_seen_ = false;

  // Runs the dry run to its end. A modal dialog (a save dialog) would block here: it is
  // closed after a while and counted.
  void dryRunToTheEnd(SweepEditor& editor) {
    dialog_seen_ = false;
    QTimer guard;
    guard.setInterval(500);
    connect(&guard, &QTimer::timeout, this, [this] {
      if (QWidget* modal = QApplication::activeModalWidget()) {
        dialog_seen_ = true;
        modal->close();
      }
    });
    guard.start();
    editor.dryRun();
    QTRY_VERIFY_WITH_TIMEOUT(
        !editor.dryRunning() && editor.outputView()->toPlainText().contains("exited with"), 30000);
  }

  // Files in the sweep's folder other than the base config and the named ones.
  QStringList strayFiles(const QStringList& expected) {
    QStringList stray;
    for (const QString& name : QDir(dir_.path()).entryList(QDir::Files | QDir::Hidden))
      if (name != "base.yaml" && !expected.contains(name)) stray << name;
    return stray;
  }

 private slots:
  void initTestCase() {
    if (fathom::gui::find_fathom_binary().isEmpty()) QSKIP("fathom binary not built");
    QVERIFY(dir_.isValid());
    base_ = dir_.filePath("base.yaml");
    QFile base(base_);
    QVERIFY(base.open(QIODevice::WriteOnly));
    base.write(
        "name: base\nmodel: {d_model: 16, heads: 2, d_ff: 32, encoder_layers: 1, "
        "decoder_layers: 1}\ndata:\n  task: synthetic\n");
  }

  void unsavedSweepDryRunsWithoutASaveDialog() {
    const QString before = QDir::currentPath();
    QDir::setCurrent(dir_.path());  // where an unsaved sweep's relative paths resolve
    SweepEditor editor;
    editor.setYaml("name: fresh\nbase: base.yaml\ngrid:\n  model.norm: [post, pre]\n");
    dryRunToTheEnd(editor);
    QDir::setCurrent(before);
    const QString out = editor.outputView()->toPlainText();
    QVERIFY2(!dialog_seen_, "a dry run of an unsaved sweep opened a dialog");
    QVERIFY2(out.contains("2 runs"), qPrintable(out));
    QVERIFY2(out.contains("unsaved sweep"), qPrintable(out));  // it says what it ran on
    QVERIFY(editor.filePath().isEmpty());                      // still unsaved
    QVERIFY2(strayFiles({}).isEmpty(), qPrintable(strayFiles({}).join(',')));  // copy removed
  }

  void editsAreDryRunWithoutOverwritingTheFile() {
    const QString path = dir_.filePath("sweep.yaml");
    const QByteArray saved = "name: demo\nbase: base.yaml\ngrid:\n  model.norm: [post, pre]\n";
    {
      QFile f(path);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(saved);
    }
    SweepEditor editor;
    QVERIFY(editor.openFile(path, true));
    editor.setYaml(QString::fromLatin1(saved) + "seeds: [1, 2]\n");
    dryRunToTheEnd(editor);
    const QString out = editor.outputView()->toPlainText();
    QVERIFY(!dialog_seen_);
    QVERIFY2(out.contains("4 runs"), qPrintable(out));  // the edits were checked...
    QCOMPARE(read_all(path), saved);                    // ...and the file left alone
    QVERIFY2(!out.contains(".fathom-dry-run"), qPrintable(out));
    QVERIFY2(strayFiles({"sweep.yaml"}).isEmpty(),
             qPrintable(strayFiles({"sweep.yaml"}).join(',')));

    // An error only the command line finds (Admin needs Post-LN, not the pre run) names the
    // sweep file, not the temporary copy.
    editor.setYaml(QString::fromLatin1(saved) + "set:\n  model.init: admin\n");
    dryRunToTheEnd(editor);
    const QString failed = editor.outputView()->toPlainText();
    QVERIFY2(failed.contains(path) && !failed.contains(".fathom-dry-run"), qPrintable(failed));
    QCOMPARE(read_all(path), saved);
  }

  void editingMarksTheOutputOutOfDate() {
    const QString path = dir_.filePath("stale.yaml");
    {
      QFile f(path);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write("name: stale\nbase: base.yaml\ngrid:\n  model.norm: [post, pre]\n");
    }
    SweepEditor editor;
    QVERIFY(editor.openFile(path, true));
    QVERIFY(!editor.dryRunOutOfDate());  // no dry run yet: nothing to be out of date
    dryRunToTheEnd(editor);
    QVERIFY(!editor.dryRunOutOfDate());
    QVERIFY(editor.outputNote()->isHidden());
    const QString original = editor.yaml();
    editor.setYaml(original + "seeds: [1, 2, 3]\n");
    QVERIFY(editor.dryRunOutOfDate());
    QVERIFY(!editor.outputNote()->isHidden());
    QVERIFY(editor.outputNote()->text().contains("Out of date"));
    editor.setYaml(original);  // back to what was dry-run
    QVERIFY(!editor.dryRunOutOfDate());
    QVERIFY(editor.outputNote()->isHidden());
  }
};

FATHOM_GUI_TEST(SweepDryRunTest);

}  // namespace test_sweep_dry_run

#include "test_sweep_dry_run.moc"
