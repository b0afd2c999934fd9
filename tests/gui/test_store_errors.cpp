// A run store that cannot be used -- missing, not SQLite, corrupt, newer schema -- gives a
// message naming the file, never a crash, and leaves the window usable.
#include <sqlite3.h>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "db/store.h"
#include "gui/main_window.h"
#include "gui/store_session.h"
#include "tests/gui/gui_test_registry.h"

using namespace fathom::gui;

namespace test_store_errors {

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
