// The sweep editor keeps form and YAML in sync both ways and marks a bad value at its field
// and line, as the user types.
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <QCompleter>
#include <QStyleOptionViewItem>

#include "db/store.h"
#include "gui/fathom_binary.h"
#include "gui/sweep_editor.h"
#include "gui/sweep_form.h"
#include "gui/sweep_form_widget.h"
#include "tests/gui/gui_test_registry.h"

using fathom::gui::SweepEditor;

namespace test_sweep_editor {

class SweepEditorTest : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  QString sweep_path_;

  // A saved sweep over a small base config, so relative paths resolve in the temp dir.
  void openValidSweep(SweepEditor& editor) {
    QVERIFY(editor.openFile(sweep_path_, true));
    QVERIFY2(editor.lastCheck().ok, editor.lastCheck().message.c_str());
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    QFile base(dir_.filePath("base.yaml"));
    QVERIFY(base.open(QIODevice::WriteOnly));
    base.write(
        "name: base\nmodel:\n  d_model: 32\n  heads: 4\n  d_ff: 64\n"
        "data:\n  task: synthetic\n");
    base.close();
    sweep_path_ = dir_.filePath("sweep.yaml");
    QFile sweep(sweep_path_);
    QVERIFY(sweep.open(QIODevice::WriteOnly));
    sweep.write(
        "name: demo\nbase: base.yaml\ngrid:\n  model.norm: [post, pre]\nseeds: [1, 2, 3]\n");
  }

  void newSweepTemplateIsValid() {
    SweepEditor editor;
    editor.checkNow();
    QVERIFY2(editor.lastCheck().ok, editor.lastCheck().message.c_str());
    QCOMPARE(editor.lastCheck().runs, 4);
  }

  void yamlFileFillsTheForm() {
    SweepEditor editor;
    openValidSweep(editor);
    QCOMPARE(editor.form()->nameEdit()->text(), QString("demo"));
    QCOMPARE(editor.form()->baseEdit()->text(), QString("base.yaml"));
    QCOMPARE(editor.form()->gridTable()->item(0, 0)->text(), QString("model.norm"));
    QCOMPARE(editor.form()->gridTable()->item(0, 1)->text(), QString("post, pre"));
    QCOMPARE(editor.form()->seedsEdit()->text(), QString("1, 2, 3"));
    QCOMPARE(editor.lastCheck().runs, 6);
    QVERIFY(editor.statusLabel()->text().contains("6 runs"));
  }

  void formEditUpdatesYaml() {
    SweepEditor editor;
    openValidSweep(editor);
    QLineEdit* name = editor.form()->nameEdit();
    name->selectAll();
    QTest::keyClicks(name, "depth-2");  // typed, as a user would
    QVERIFY(editor.yaml().contains("name: depth-2\n"));
    QTableWidget* grid = editor.form()->gridTable();
    grid->item(0, 1)->setText("post, pre, post");  // an edit of the values cell
    QVERIFY(editor.yaml().contains("  model.norm: [post, pre, post]\n"));
    // A new axis typed into the always-empty last row.
    QCOMPARE(grid->rowCount(), 2);
    grid->item(1, 0)->setText("model.encoder_layers");
    grid->item(1, 1)->setText("2, 4");
    QVERIFY(editor.yaml().contains("  model.encoder_layers: [2, 4]\n"));
    // The empty zip table has its row to type into as well.
    QTableWidget* zip = editor.form()->zipTable();
    QCOMPARE(zip->rowCount(), 1);
    zip->item(0, 0)->setText("model.decoder_layers");
    zip->item(0, 1)->setText("2, 4");
    QVERIFY(editor.yaml().contains("zip:\n  model.decoder_layers: [2, 4]\n"));
    editor.form()->seedsEdit()->clear();
    QTest::keyClicks(editor.form()->seedsEdit(), "7");
    QVERIFY(editor.yaml().contains("seeds: [7]\n"));
  }

  void yamlEditUpdatesForm() {
    SweepEditor editor;
    openValidSweep(editor);
    editor.setYaml(
        "name: other\nbase: base.yaml\ngrid:\n  model.init: [xavier, lipschitz]\n"
        "  model.heads: [2, 4]\nset:\n  train.max_updates: 50\n");
    QCOMPARE(editor.form()->nameEdit()->text(), QString("other"));
    QTableWidget* grid = editor.form()->gridTable();
    QCOMPARE(grid->item(0, 0)->text(), QString("model.init"));
    QCOMPARE(grid->item(0, 1)->text(), QString("xavier, lipschitz"));
    QCOMPARE(grid->item(1, 0)->text(), QString("model.heads"));
    QCOMPARE(editor.form()->setTable()->item(0, 1)->text(), QString("50"));
    QCOMPARE(editor.form()->seedsEdit()->text(), QString());
    editor.checkNow();
    QVERIFY2(editor.lastCheck().ok, editor.lastCheck().message.c_str());
    QCOMPARE(editor.lastCheck().runs, 4);
  }

  void zipGroupIsEditedInTheForm() {
    SweepEditor editor;
    openValidSweep(editor);
    editor.setYaml(
        "name: z\nbase: base.yaml\nzip:\n  model.encoder_layers: [2, 4]\n"
        "  model.decoder_layers: [2, 4]\n");
    QTableWidget* zip = editor.form()->zipTable();
    QCOMPARE(zip->item(1, 0)->text(), QString("model.decoder_layers"));
    zip->item(1, 1)->setText("2, 4, 6");  // one value too many
    QVERIFY(editor.yaml().contains(
        "zip:\n  model.encoder_layers: [2, 4]\n  model.decoder_layers: [2, 4, 6]\n"));
    editor.checkNow();
    QVERIFY(!editor.lastCheck().ok);
    QCOMPARE(editor.lastCheck().line, 5);
    QCOMPARE(zip->property("sweepErrorRow").toInt(), 1);
  }

  void zipGroupsAndExcludeSurviveAFormEdit() {
    SweepEditor editor;
    openValidSweep(editor);
    // Several zip groups and exclude rules are YAML-only: kept verbatim through form edits.
    editor.setYaml(
        "name: z\nbase: base.yaml\nzip:\n  - model.encoder_layers: [2, 4]\n"
        "    model.decoder_layers: [2, 4]\n  - model.norm: [post, pre]\n"
        "    model.init: [xavier, xavier]\nexclude:\n  - {model.norm: pre, model.encoder_layers: "
        "4}\n");
    editor.form()->nameEdit()->setText("z2");
    emit editor.form()->edited();
    QVERIFY(editor.yaml().startsWith("name: z2\n"));
    QVERIFY(editor.yaml().contains("model.decoder_layers"));
    QVERIFY(editor.yaml().contains("exclude"));
    editor.checkNow();
    QVERIFY2(editor.lastCheck().ok, editor.lastCheck().message.c_str());
    QCOMPARE(editor.lastCheck().runs, 3);
  }

  // A fork sweep (docs/sweeps.md) is checked against its parent's config in the window's
  // store: counted, a change a fork cannot make marked at its line; a form edit keeps its
  // `fork:` and writes no `base:`. Without a store it says it needs one.
  void aForkSweepIsCheckedAgainstTheParentInTheStore() {
    const QString db = dir_.filePath("forks.db");
    {
      auto store = fathom::db::Store::open(db.toStdString());
      fathom::db::NewRun parent;
      parent.name = "parent";
      parent.config_yaml =
          "name: parent\nmodel:\n  d_model: 32\n  heads: 4\n  d_ff: 64\ndata:\n  task: "
          "synthetic\n";
      store.create_run(parent);
    }
    const QString fork_sweep =
        "name: rescue\nfork: {run: parent, from: 10}\ngrid:\n  train.lr: [0.001, 0.0005]\n";
    SweepEditor alone;
    alone.setYaml(fork_sweep);
    alone.checkNow();
    QVERIFY(!alone.lastCheck().ok);
    QVERIFY2(alone.lastCheck().message.find("open the store") != std::string::npos,
             alone.lastCheck().message.c_str());
    SweepEditor editor;
    editor.setDatabasePath(db);
    editor.setYaml(fork_sweep);
    editor.checkNow();
    QVERIFY2(editor.lastCheck().ok, editor.lastCheck().message.c_str());
    QCOMPARE(editor.lastCheck().runs, 2);
    editor.form()->nameEdit()->setText("rescue-2");
    emit editor.form()->edited();
    QVERIFY(editor.yaml().contains("fork:"));
    QVERIFY2(!editor.yaml().contains("base:"), qPrintable(editor.yaml()));
    editor.checkNow();
    QVERIFY2(editor.lastCheck().ok, editor.lastCheck().message.c_str());
    editor.setYaml(
        "name: rescue\nfork: {run: parent, from: 10}\ngrid:\n  model.d_model: [32, 64]\n");
    editor.checkNow();
    QVERIFY(!editor.lastCheck().ok);
    QCOMPARE(editor.lastCheck().line, 4);
    QCOMPARE(editor.lastCheck().field, std::string("model.d_model"));
    editor.setYaml("name: rescue\nfork: {run: nobody, from: 10}\ngrid:\n  train.lr: [0.001]\n");
    editor.checkNow();
    QVERIFY(!editor.lastCheck().ok);
    QCOMPARE(editor.lastCheck().line, 2);
  }

  void badValueIsMarkedAtItsFieldAndLine() {
    SweepEditor editor;
    openValidSweep(editor);
    // Line 4 holds the grid axis; 'sideways' is not a choice of model.norm.
    editor.form()->gridTable()->item(0, 1)->setText("post, sideways");
    editor.checkNow();
    const auto& check = editor.lastCheck();
    QVERIFY(!check.ok);
    QCOMPARE(check.line, 4);
    QCOMPARE(check.field, std::string("model.norm"));
    QVERIFY2(editor.statusLabel()->text().contains("sweep.yaml:4:"),
             qPrintable(editor.statusLabel()->text()));
    QVERIFY(editor.statusLabel()->text().contains("sideways"));
    QTableWidget* grid = editor.form()->gridTable();
    QCOMPARE(grid->property("sweepErrorRow").toInt(), 0);
    QVERIFY(grid->item(0, 1)->toolTip().contains("sideways"));
    // The value is marked, not the key: its cell, and in the YAML the word itself.
    QVERIFY(grid->item(0, 1)->background().style() != Qt::NoBrush);
    QCOMPARE(grid->item(0, 0)->background().style(), Qt::NoBrush);
    QCOMPARE(editor.yamlEdit()->extraSelections().size(), 1);
    const QTextCursor mark = editor.yamlEdit()->extraSelections().front().cursor;
    QCOMPARE(mark.blockNumber(), 3);
    QCOMPARE(mark.selectedText(), QString("sideways"));

    // Fixing it clears the marks.
    grid->item(0, 1)->setText("post");
    editor.checkNow();
    QVERIFY(editor.lastCheck().ok);
    QVERIFY(!grid->property("sweepErrorRow").isValid());
    QVERIFY(editor.yamlEdit()->extraSelections().isEmpty());
  }

  void errorWhileTypingYamlMarksTheNameField() {
    SweepEditor editor;
    openValidSweep(editor);
    editor.setYaml("name: bad name!\nbase: base.yaml\nseeds: [1]\n");
    QTRY_VERIFY_WITH_TIMEOUT(!editor.lastCheck().ok, 3000);  // the check after a typing pause
    QCOMPARE(editor.lastCheck().line, 1);
    QVERIFY(editor.form()->nameEdit()->property("sweepError").toString().contains("name"));
  }

  void unknownKeySuggestsTheRightOne() {
    SweepEditor editor;
    openValidSweep(editor);
    editor.setYaml("name: d\nbase: base.yaml\ngrid:\n  model.inits: [xavier]\n");
    editor.checkNow();
    QVERIFY(!editor.lastCheck().ok);
    QCOMPARE(editor.lastCheck().line, 4);
    QVERIFY(editor.statusLabel()->text().contains("model.init"));
    // The unknown key is what is wrong: its cell and its text are marked, not the value.
    QTableWidget* grid = editor.form()->gridTable();
    QVERIFY(grid->item(0, 0)->background().style() != Qt::NoBrush);
    QCOMPARE(grid->item(0, 1)->background().style(), Qt::NoBrush);
    QCOMPARE(editor.yamlEdit()->extraSelections().front().cursor.selectedText(),
             QString("model.inits"));
  }

  // An unknown key without a dot ('lr' for train.lr) and an unknown sweep key ('grd') are
  // the keys' errors; a bad base path is its value's.
  void unknownShortKeysAreMarkedAsKeys() {
    SweepEditor editor;
    openValidSweep(editor);
    editor.setYaml("name: d\nbase: base.yaml\ngrid:\n  lr: [0.001, 0.002]\n");
    editor.checkNow();
    QCOMPARE(editor.yamlEdit()->extraSelections().front().cursor.selectedText(), QString("lr"));
    QVERIFY(editor.form()->gridTable()->item(0, 0)->background().style() != Qt::NoBrush);
    editor.setYaml("name: d\nbase: base.yaml\ngrd:\n  model.norm: [post]\n");
    editor.checkNow();
    QCOMPARE(editor.yamlEdit()->extraSelections().front().cursor.selectedText(), QString("grd"));
    editor.setYaml("name: d\nbase: missing.yaml\ngrid:\n  model.norm: [post]\n");
    editor.checkNow();
    QVERIFY(!editor.lastCheck().ok);
    QVERIFY2(editor.yamlEdit()->extraSelections().isEmpty() ||
                 editor.yamlEdit()->extraSelections().front().cursor.selectedText() ==
                     QString("missing.yaml"),
             editor.lastCheck().message.c_str());
  }

  // A value on a block list's own line: the item after "- " is marked.
  void badValueInABlockListIsMarkedOnItsLine() {
    SweepEditor editor;
    openValidSweep(editor);
    editor.setYaml("name: d\nbase: base.yaml\ngrid:\n  model.norm:\n    - post\n    - sideways\n");
    editor.checkNow();
    QVERIFY(!editor.lastCheck().ok);
    const QTextCursor mark = editor.yamlEdit()->extraSelections().front().cursor;
    QVERIFY2(mark.selectedText() == QString("sideways"),
             qPrintable(QString::number(editor.lastCheck().line) + " " + mark.selectedText()));
  }

  // Every sub-layer style in the registry (asked of `fathom config --methods`) is offered for
  // model.norm: listed with its description in the key's tooltip, and completed item by item
  // in the values cell.
  void registeredMethodsAreOffered() {
    QVERIFY2(!fathom::gui::find_fathom_binary().isEmpty(), "fathom binary not found ($FATHOM_BIN)");
    SweepEditor editor;
    openValidSweep(editor);
    QTableWidget* grid = editor.form()->gridTable();
    const QString tip = grid->item(0, 0)->toolTip();
    for (const char* style : {"post:", "pre:", "peri:", "mix:", "lns:", "dyt:"})
      QVERIFY2(tip.contains(QString::fromLatin1(style)), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("arXiv 2503.10622")), qPrintable(tip));  // DyT's doc

    QStyleOptionViewItem option;
    QWidget* editor_widget = grid->itemDelegateForColumn(1)->createEditor(
        grid->viewport(), option, grid->model()->index(0, 1));
    auto* edit = qobject_cast<QLineEdit*>(editor_widget);
    QVERIFY(edit && edit->completer());
    const QStringList words = edit->completer()->model()->index(0, 0).isValid()
                                  ? [&] {
                                      QStringList all;
                                      for (int r = 0; r < edit->completer()->model()->rowCount(); ++r)
                                        all << edit->completer()->model()->index(r, 0).data().toString();
                                      return all;
                                    }()
                                  : QStringList();
    QVERIFY2(words.contains(QStringLiteral("lns")) && words.contains(QStringLiteral("peri")),
             qPrintable(words.join(',')));
    QCOMPARE(edit->completer()->splitPath(QStringLiteral("post, pe")),
             QStringList{QStringLiteral("pe")});
    delete editor_widget;
  }
};

FATHOM_GUI_TEST(SweepEditorTest);

}  // namespace test_sweep_editor

#include "test_sweep_editor.moc"
