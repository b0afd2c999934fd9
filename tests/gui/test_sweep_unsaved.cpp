// Unsaved edits in the sweep editor are never dropped silently: opening another sweep or
// closing the window asks to save them first -- Save writes the file, Discard drops them,
// Cancel keeps the editor (and the window) as it was.
#include <QCoreApplication>
#include <QFile>
#include <QMessageBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "gui/main_window.h"
#include "gui/sweep_editor.h"
#include "tests/gui/answer_message_box.h"
#include "tests/gui/gui_test_registry.h"

using fathom::gui::SweepEditor;

namespace test_sweep_unsaved {

QByteArray contents(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

class SweepUnsavedTest : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  QString sweep_;
  const QByteArray saved_ = "name: s\nbase: base.yaml\ngrid:\n  model.norm: [post, pre]\n";
  const QString edited_ = "name: s\nbase: base.yaml\ngrid:\n  model.norm: [post, pre, peri]\n";

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);  // the window's settings go to a test file
    QCoreApplication::setOrganizationName("fathom-test");
    QFile base(dir_.filePath("base.yaml"));
    QVERIFY(base.open(QIODevice::WriteOnly));
    base.write("model: {d_model: 16, heads: 2, d_ff: 32}\ndata: {task: synthetic}\n");
  }
  void init() {  // the sweep file as saved, before each test
    sweep_ = dir_.filePath("s.yaml");
    QFile f(sweep_);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(saved_);
  }

  void saveDiscardOrCancel() {
    SweepEditor editor;
    QVERIFY(editor.openFile(sweep_, true));
    QVERIFY(!editor.hasUnsavedEdits());
    QVERIFY(editor.keepOrDiscardEdits());  // nothing to lose: no question
    editor.setYaml(edited_);
    QVERIFY(editor.hasUnsavedEdits());
    bool asked = false;
    fathom::testing::answer_next_message_box(QMessageBox::Cancel, &asked);
    QVERIFY(!editor.keepOrDiscardEdits());
    QVERIFY(asked);
    QVERIFY(editor.hasUnsavedEdits());
    QCOMPARE(contents(sweep_), saved_);
    asked = false;
    fathom::testing::answer_next_message_box(QMessageBox::Save, &asked);
    QVERIFY(editor.keepOrDiscardEdits());
    QVERIFY(asked && !editor.hasUnsavedEdits());
    QCOMPARE(QString::fromUtf8(contents(sweep_)), edited_);
    editor.setYaml(QString::fromUtf8(saved_));
    asked = false;
    fathom::testing::answer_next_message_box(QMessageBox::Discard, &asked);
    QVERIFY(editor.keepOrDiscardEdits());
    QVERIFY(asked);
    QCOMPARE(QString::fromUtf8(contents(sweep_)), edited_);  // discarded: not written
  }

  void closingTheWindowAsksFirst() {
    fathom::gui::MainWindow window;
    QVERIFY(window.sweepEditor()->openFile(sweep_, true));
    window.sweepEditor()->setYaml(edited_);
    window.show();
    bool asked = false;
    fathom::testing::answer_next_message_box(QMessageBox::Cancel, &asked);
    QVERIFY(!window.close());  // cancelled: the window stays, the edits with it
    QVERIFY(asked && window.isVisible() && window.sweepEditor()->hasUnsavedEdits());
    asked = false;
    fathom::testing::answer_next_message_box(QMessageBox::Discard, &asked);
    QVERIFY(window.close());
    QVERIFY(asked);
    QCOMPARE(contents(sweep_), saved_);
  }
};

FATHOM_GUI_TEST(SweepUnsavedTest);

}  // namespace test_sweep_unsaved

#include "test_sweep_unsaved.moc"
