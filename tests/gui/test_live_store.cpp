// The desktop app on a store that other processes write to (issue 36.1). SQLite keeps readers
// safe with POSIX locks, which a process loses on a file whenever it closes any descriptor of
// it -- and Qt's file dialog opens a *.db file to sniff its type. The next writer to close then
// deletes -wal and -shm under the window, whose connections see a frozen store or report it
// "malformed". The app's dialogs must not sniff, and the window must notice a stale connection
// and reconnect without reporting an error. Writers are real processes
// (tests/support/store_writer.cpp): each round opens, writes a run, metrics and an analysis,
// and closes its own connection.
#include <QCheckBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFileSystemModel>
#include <QMimeDatabase>
#include <QProcess>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include "db/store.h"
#include "gui/analysis_view.h"
#include "gui/fathom_binary.h"
#include "gui/file_dialog.h"
#include "gui/main_window.h"
#include "gui/runs_model.h"
#include "gui/runs_view.h"
#include "gui/store_session.h"
#include "tests/gui/gui_test_registry.h"

using fathom::db::OpenMode;
using fathom::db::Store;
using namespace fathom::gui;

namespace test_live_store {

class LiveStoreTest : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  QString db_;

  static QString writer() { return qEnvironmentVariable("FATHOM_STORE_WRITER"); }

  // `rounds` runs (each with an analysis) written by another process, which then exits.
  static bool write(const QString& db, int rounds) {
    QProcess p;
    p.start(writer(), {db, QString::number(rounds), QStringLiteral("30")});
    return p.waitForFinished(60000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
  }

  // What Qt's own file dialog does to a file whose name does not settle its type.
  static void sniff(const QString& path) { QMimeDatabase().mimeTypeForFile(QFileInfo(path)); }

  // Asks a dialog's directory model for every file's icon and type, as painting it does.
  static void listDirectory(QFileDialog& dialog) {
    auto* model = dialog.findChild<QFileSystemModel*>();
    QVERIFY(model);
    const QModelIndex root = model->index(dir_of(dialog));
    QTRY_VERIFY_WITH_TIMEOUT(model->rowCount(root) > 0, 5000);
    for (int row = 0; row < model->rowCount(root); ++row)
      for (int column = 0; column < model->columnCount(root); ++column) {
        model->data(model->index(row, column, root), Qt::DecorationRole);
        model->data(model->index(row, column, root), Qt::DisplayRole);
      }
    QTest::qWait(300);  // the icon gatherer's thread
  }
  static QString dir_of(const QFileDialog& dialog) { return dialog.directory().absolutePath(); }

  static int analysesListed(MainWindow& window) { return window.analyses()->results()->rowCount(); }

 private slots:
  void initTestCase() {
    QVERIFY2(QFileInfo(writer()).isExecutable(), "FATHOM_STORE_WRITER is not set to a program");
    db_ = dir_.filePath(QStringLiteral("live.db"));
    QVERIFY(write(db_, 1));
  }

  void fileDialogsLeaveTheStoreLocksAlone() {
    QString error;
    auto session = StoreSession::open(db_, &error);
    QVERIFY2(session, qPrintable(error));
    const size_t before = session->store.list_runs().size();

    std::unique_ptr<QFileDialog> ours(
        make_file_dialog(nullptr, QStringLiteral("Open"), dir_.path(), QStringLiteral("*.db")));
    ours->show();
    listDirectory(*ours);
    QVERIFY(write(db_, 1));
    QVERIFY2(!session->store.connection_stale(), "the app's dialog read the store file");
    QVERIFY(QFileInfo::exists(db_ + "-wal"));
    QCOMPARE(session->store.list_runs().size(), before + 1);

    // Qt's dialog as it comes does read it: the hazard the app's dialogs avoid.
    QFileDialog plain(nullptr, QStringLiteral("Open"), dir_.path(), QStringLiteral("*.db"));
    plain.setOption(QFileDialog::DontUseNativeDialog);
    plain.show();
    listDirectory(plain);
    QVERIFY(write(db_, 1));
    QVERIFY(session->store.connection_stale());
  }

  void windowReconnectsWhenItsConnectionGoesStale() {
    MainWindow window;
    QVERIFY2(window.openDatabase(db_, true), qPrintable(window.lastError()));
    window.analyses()->findChild<QCheckBox*>()->setChecked(true);  // every run's results
    const int runs = window.runsView()->model()->rowCount();
    const int analyses = analysesListed(window);

    sniff(db_);
    QVERIFY(write(db_, 2));
    window.pollNow();
    QVERIFY2(window.lastError().isEmpty(), qPrintable(window.lastError()));
    QCOMPARE(window.reconnects(), 1);
    QCOMPARE(window.runsView()->model()->rowCount(), runs + 2);
    QCOMPARE(analysesListed(window), analyses + 2);

    // View > Refresh opens the store again whatever the state of the old connection.
    QVERIFY(window.reconnect(QString()));
    QCOMPARE(window.runsView()->model()->rowCount(), runs + 2);
  }

  // Seconds (FATHOM_LIVE_STORE_SECONDS; default 20, ~600 rounds and 3 reads of the file on 2
  // cores; set minutes for a soak) of other processes writing -- two writers
  // at a time, each round its own connection -- while the window polls once a second, and now
  // and then something in this process reads the store file: never an error, and at the end
  // the window lists every run and analysis the store holds. Beyond 4 minutes also raise
  // QtTest's own limit per test function (QTEST_FUNCTION_TIMEOUT, in ms; default 5 minutes).
  void windowStaysHealthyWhileOthersWrite() {
    const int seconds = qEnvironmentVariableIntValue("FATHOM_LIVE_STORE_SECONDS") > 0
                            ? qEnvironmentVariableIntValue("FATHOM_LIVE_STORE_SECONDS")
                            : 20;
    MainWindow window;
    QVERIFY2(window.openDatabase(db_, true), qPrintable(window.lastError()));
    window.analyses()->findChild<QCheckBox*>()->setChecked(true);
    window.show();

    QProcess writers[2];
    int rounds_started = 0, failures = 0;
    QElapsedTimer clock;
    clock.start();
    QString first_error;
    int last_sniff = 0;
    while (clock.elapsed() < seconds * 1000) {
      for (QProcess& w : writers)
        if (w.state() == QProcess::NotRunning) {
          if (rounds_started > 0 && (w.exitStatus() != QProcess::NormalExit || w.exitCode() != 0))
            ++failures;
          w.start(writer(), {db_, QStringLiteral("3"), QStringLiteral("40")});
          rounds_started += 3;
        }
      if (clock.elapsed() / 5000 > last_sniff) {  // every 5 s
        last_sniff = static_cast<int>(clock.elapsed() / 5000);
        sniff(db_);
      }
      QTest::qWait(200);
      if (first_error.isEmpty() && !window.lastError().isEmpty()) first_error = window.lastError();
    }
    for (QProcess& w : writers) {
      if (w.state() != QProcess::NotRunning) QVERIFY(w.waitForFinished(60000));
      if (w.exitStatus() != QProcess::NormalExit || w.exitCode() != 0) ++failures;
    }
    QCOMPARE(failures, 0);
    QTest::qWait(1500);  // a last poll
    QVERIFY2(first_error.isEmpty(), qPrintable(first_error));

    Store fresh = Store::open(db_.toStdString(), OpenMode::ReadOnly);
    QCOMPARE(window.runsView()->model()->rowCount(), static_cast<int>(fresh.list_runs().size()));
    QCOMPARE(analysesListed(window), static_cast<int>(fresh.list_analyses().size()));
    QVERIFY2(window.reconnects() > 0, "no stale connection happened: the test did not test");
    qInfo("%d s: %d rounds written, %d reconnects", seconds, rounds_started, window.reconnects());
  }

  // The build puts `fathom` one folder above fathom-gui (build/fathom, build/gui/fathom-gui).
  void findsTheCommandLineInTheBuildTree() {
    const QString expected = QFileInfo(qEnvironmentVariable("FATHOM_BIN")).canonicalFilePath();
    const QString gui_dir = qEnvironmentVariable("FATHOM_GUI_DIR");
    if (expected.isEmpty() || gui_dir.isEmpty()) QSKIP("fathom or fathom-gui not built");
    QCOMPARE(find_fathom_binary_from(gui_dir), expected);
  }
};

FATHOM_GUI_TEST(LiveStoreTest);

}  // namespace test_live_store

#include "test_live_store.moc"
