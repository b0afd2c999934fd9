// The run details dialog: every key stands apart from its value, however long the key
// (issue 36.9: "decode_time_s5.98552").
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include "db/store.h"
#include "gui/run_details.h"

using fathom::db::NewRun;
using fathom::db::Store;

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
    const QString text = dialog.findChild<QPlainTextEdit*>()->toPlainText();
    QVERIFY2(text.contains(QRegularExpression(R"(\n  decode_time_s {2,}5\.98552\n)")),
             qPrintable(text));
    QVERIFY(text.contains(QRegularExpression(R"(\n  valid_ppl {2,}3\.5\n)")));
    QVERIFY(text.contains(
        QRegularExpression(R"(\n  axis\.model\.encoder_layers_with_a_long_name {2,}18\n)")));
    QVERIFY(text.contains(
        QRegularExpression(R"(\n  checkpoint_best {2,}run-1/best\.g1\.pt \(update 200\)\n)")));
    QVERIFY(text.contains(QStringLiteral("\nfinal metrics\n")));
    // One column: every value starts at the same place.
    const qsizetype at = text.indexOf(QStringLiteral("5.98552")) -
                         text.lastIndexOf('\n', text.indexOf(QStringLiteral("5.98552")));
    const qsizetype at_ppl = text.indexOf(QStringLiteral("3.5\n")) -
                             text.lastIndexOf('\n', text.indexOf(QStringLiteral("3.5\n")));
    QCOMPARE(at, at_ppl);
  }
};

QTEST_MAIN(RunDetailsTest)
#include "test_run_details.moc"
