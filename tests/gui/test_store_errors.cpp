// A run store that cannot be used -- missing, not SQLite, corrupt, newer schema -- gives a
// message naming the file, never a crash, and leaves the window usable; an older one is
// upgraded when the user says so, and left as it was when not.
#include <sqlite3.h>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QMessageBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "db/migrations.h"
#include "db/store.h"
#include "gui/main_window.h"
#include "gui/runs_view.h"
#include "gui/store_session.h"
#include "tests/gui/answer_message_box.h"
#include "tests/gui/gui_test_registry.h"

using namespace fathom::gui;

namespace test_store_errors {

// A store as a build of schema version 4 left it: the first four migrations and one run.
void write_version4_store(const QString& path) {
  sqlite3* db = nullptr;
  QCOMPARE(sqlite3_open(path.toUtf8().constData(), &db), SQLITE_OK);
  for (int v = 0; v < 4; ++v)
    QCOMPARE(sqlite3_exec(db, fathom::db::migrations()[v].sql, nullptr, nullptr, nullptr),
             SQLITE_OK);
  const char* rows =
      "PRAGMA user_version = 4;"
      "INSERT INTO runs (name, sweep, config_json, status, created_at)"
      " VALUES ('kept', 's', '{}', 'finished', 1);";
  QCOMPARE(sqlite3_exec(db, rows, nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
}

int schema_version_of(const QString& path) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.toUtf8().constData(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, nullptr);
  const int version = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
  sqlite3_finalize(st);
  sqlite3_close(db);
  return version;
}

class StoreErrorsTest : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;

  QString write(const QString& name, const QByteArray& bytes) {
    const QString path = dir_.filePath(name);
    QFile f(path);
    f.open(QIODevice::WriteOnly);
    f.write(bytes);
    return path;
  }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);  // recent stores go to a test settings file
    QCoreApplication::setOrganizationName("fathom-test");
  }

  void missingFile() {
    QString error;
    QVERIFY(!StoreSession::open(dir_.filePath("nope.db"), &error));
    QVERIFY2(error.contains("nope.db") && error.contains("not found"), qPrintable(error));
  }

  void notADatabase() {
    QString error;
    QVERIFY(!StoreSession::open(write("text.db", QByteArray(4096, 'x')), &error));
    QVERIFY2(error.contains("text.db"), qPrintable(error));
  }

  void corruptDatabase() {
    // A real store with its pages overwritten past the header.
    const QString path = dir_.filePath("corrupt.db");
    {
      auto store = fathom::db::Store::open(path.toStdString());
      fathom::db::NewRun r;
      r.name = "x";
      store.create_run(r);
    }
    QFile::remove(path + "-wal");
    QFile::remove(path + "-shm");
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadWrite));
    QByteArray bytes = f.readAll();
    for (int i = 100; i < bytes.size(); ++i) bytes[i] = static_cast<char>(0xA5 ^ i);
    f.seek(0);
    f.write(bytes);
    f.close();
    QString error;
    auto session = StoreSession::open(path, &error);
    if (session) {  // if the header survived, the first read must fail cleanly instead
      try {
        session->store.list_runs();
        QFAIL("a corrupt store read without error");
      } catch (const std::exception& e) {
        error = describe_store_error(e);
      }
    }
    QVERIFY2(!error.isEmpty(), "no message");
  }

  void newerSchema() {
    const QString path = dir_.filePath("future.db");
    { auto store = fathom::db::Store::open(path.toStdString()); }
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open(path.toUtf8().constData(), &db), SQLITE_OK);
    const std::string sql =
        "PRAGMA user_version = " + std::to_string(fathom::db::Store::latest_schema_version() + 5);
    QCOMPARE(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
    QString error;
    QVERIFY(!StoreSession::open(path, &error));
    QVERIFY2(error.contains("future.db") && error.contains("newer"), qPrintable(error));
  }

  void olderSchemaNamesTheUpgradeAndChangesNothing() {
    const QString path = dir_.filePath("older.db");
    write_version4_store(path);
    QString error;
    bool outdated = false;
    QVERIFY(!StoreSession::open(path, &error, &outdated));
    QVERIFY(outdated);
    QVERIFY2(error.contains("older.db") && error.contains("fathom db upgrade"), qPrintable(error));
    MainWindow window;
    QVERIFY(!window.openDatabase(path, /*quiet=*/true));  // a reconnect or a screenshot: no asking
    QString asked;
    fathom::testing::answer_next_message_box(QMessageBox::Cancel, nullptr, &asked);
    QVERIFY(!window.openDatabase(path));
    QVERIFY2(asked.contains("Upgrade it now?"), qPrintable(asked));
    QCOMPARE(schema_version_of(path), 4);  // declined: the file is as it was
  }

  void olderSchemaOpensOnceUpgraded() {
    const QString path = dir_.filePath("upgraded.db");
    write_version4_store(path);
    MainWindow window;
    QString asked;
    fathom::testing::answer_next_message_box(QMessageBox::Yes, nullptr, &asked);
    QVERIFY2(window.openDatabase(path), qPrintable(window.lastError()));
    QVERIFY(!asked.isEmpty());
    QCOMPARE(schema_version_of(path), fathom::db::Store::latest_schema_version());
    QCOMPARE(window.runsView()->model()->runs().size(), size_t{1});
    QCOMPARE(window.runsView()->model()->runs()[0].name, std::string("kept"));
  }

  void lockedDatabaseAnswersQuickly() {
    const QString path = dir_.filePath("locked.db");
    { auto store = fathom::db::Store::open(path.toStdString()); }
    sqlite3* lock = nullptr;  // another connection holding readers out, as a foreign tool might
    QCOMPARE(sqlite3_open(path.toUtf8().constData(), &lock), SQLITE_OK);
    QCOMPARE(sqlite3_exec(lock,
                          "PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; "
                          "UPDATE runs SET name = name;",
                          nullptr, nullptr, nullptr),
             SQLITE_OK);
    QElapsedTimer timer;
    timer.start();
    QString error;
    QVERIFY(!StoreSession::open(path, &error));
    QVERIFY2(timer.elapsed() < 5000, "waited on the lock");  // not the store's one-minute wait
    QVERIFY2(error.contains("locked"), qPrintable(error));
    sqlite3_exec(lock, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(lock);
    QVERIFY2(StoreSession::open(path, &error), qPrintable(error));
  }

  void windowShowsTheMessageAndStaysUsable() {
    MainWindow window;
    QVERIFY(!window.openDatabase(write("garbage.db", QByteArray(8192, '\x07')), /*quiet=*/true));
    QVERIFY(window.lastError().contains("garbage.db"));
    window.pollNow();  // no store: nothing to poll, nothing to crash
    const QString good = dir_.filePath("good.db");
    { auto store = fathom::db::Store::open(good.toStdString()); }
    QVERIFY(window.openDatabase(good, true));
    QVERIFY(window.lastError().isEmpty());
  }
};

FATHOM_GUI_TEST(StoreErrorsTest);

}  // namespace test_store_errors

#include "test_store_errors.moc"
