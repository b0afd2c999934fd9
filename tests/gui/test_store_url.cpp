// The window on a store named by URL: a PostgreSQL store opens, polls and deletes runs like a
// SQLite file; its password shows nowhere (title, status bar, messages, recent list, settings);
// `fathom` children get the store in $FATHOM_DB, never in argv; a server store without an
// artifacts directory still deletes rows and says its files were left. The server tests use
// ctest's throwaway PostgreSQL server (scripts/pg-test-server.sh, $FATHOM_TEST_PG_DIR) and skip
// with the reason where it is not running.
#include <cstdlib>

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QInputDialog>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include "db/store.h"
#include "gui/dashboard_view.h"
#include "gui/fathom_binary.h"
#include "gui/main_window.h"
#include "gui/run_actions.h"
#include "tests/gui/gui_test_registry.h"
#include "tests/support/store_backends.h"

using fathom::db::NewRun;
using fathom::db::Store;
using namespace fathom::gui;

namespace test_store_url {

std::vector<fathom::db::MetricRow> loss(int from, int to) {
  std::vector<fathom::db::MetricRow> rows;
  for (int s = from; s <= to; s += 10) rows.emplace_back(s, "train_loss", 5.0 - s / 100.0, 0.0);
  return rows;
}

// The password of postgresql://user:PASSWORD@host/db.
QString password_of(const QString& url) {
  const int colon = url.indexOf(':', url.indexOf("://") + 3), at = url.lastIndexOf('@');
  return url.mid(colon + 1, at - colon - 1);
}

QMenu* recent_menu(MainWindow& window) {
  for (auto* menu : window.findChildren<QMenu*>())
    if (menu->title() == QStringLiteral("Open &recent")) return menu;
  return nullptr;
}

// Writes a stand-in `fathom` that records its argv and $FATHOM_DB into `dir`.
QString fake_fathom(const QTemporaryDir& dir) {
  const QString script = dir.filePath("fake-fathom");
  QFile f(script);
  if (!f.open(QIODevice::WriteOnly)) return {};
  f.write(QStringLiteral("#!/bin/sh\necho \"$@\" > '%1.tmp' && mv '%1.tmp' '%1'\n"
                         "echo \"$FATHOM_DB\" > '%2'\n")
              .arg(dir.filePath("args.txt"), dir.filePath("env.txt"))
              .toUtf8());
  f.close();
  f.setPermissions(f.permissions() | QFileDevice::ExeOwner);
  return script;
}

QString read_trimmed(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()).trimmed() : QString();
}

class StoreUrlTest : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;

  // A fresh PostgreSQL database's URL (with the server's password), or "" after QSKIP.
  static std::string server_store(const char* name) {
    if (auto why = fathom::testing::postgres_unavailable()) return {};
    return fathom::testing::create_postgres_database(name);
  }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("fathom-test");
    QCoreApplication::setApplicationName("store-url-test");
    QSettings().clear();
    qunsetenv("FATHOM_ARTIFACTS");
  }

  void sqliteUrlOpensAsAnAbsoluteFile() {
    const QString file = dir_.filePath("u.db");
    { auto store = Store::open(file.toStdString()); }
    MainWindow window;
    QVERIFY2(window.openDatabase("sqlite://" + file, true), qPrintable(window.lastError()));
    QCOMPARE(window.databaseLocation(), file);
    QCOMPARE(QSettings().value("recentDatabases").toStringList().value(0), file);
    QCOMPARE(run_artifacts_dir("sqlite:///data/exp.db", 12), QString("/data/exp.artifacts/run-12"));
  }

  void recentListNeverHoldsAPassword() {
    const QString file = dir_.filePath("recent.db");
    QSettings().setValue("recentDatabases",
                         QStringList{file, "postgresql://me:hunter2@db.lab:5432/fathom",
                                     "postgresql://me@db.lab:5432/fathom"});
    MainWindow window;
    QMenu* menu = recent_menu(window);
    QVERIFY(menu);
    QStringList shown;
    for (auto* action : menu->actions()) shown << action->text();
    QCOMPARE(shown, (QStringList{file, "postgresql://me@db.lab:5432/fathom"}));
    QSettings().remove("recentDatabases");
  }

  // File > Open URL... asks for a URL (with an example as placeholder) and opens what is typed.
  void openUrlAsksForTheUrl() {
    const QString file = dir_.filePath("typed.db");
    { auto store = Store::open(file.toStdString()); }
    MainWindow window;
    QAction* open_url = nullptr;
    for (auto* action : window.menuBar()->actions().first()->menu()->actions())
      if (action->text() == QStringLiteral("Open &URL...")) open_url = action;
    QVERIFY(open_url);
    QCOMPARE(open_url->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_U));
    QString placeholder;
    QTimer::singleShot(0, [&] {
      auto* dialog = qobject_cast<QInputDialog*>(QApplication::activeModalWidget());
      if (!dialog) return;
      if (auto* edit = dialog->findChild<QLineEdit*>()) placeholder = edit->placeholderText();
      dialog->setTextValue("sqlite://" + file);
      dialog->accept();
    });
    open_url->trigger();
    QCOMPARE(placeholder, QString("postgresql://user@host:5432/fathom"));
    QCOMPARE(window.databaseLocation(), file);
  }

  void unreachableServerMessageHidesThePassword() {
    MainWindow window;
    QVERIFY(!window.openDatabase("postgresql://me:hunter2@127.0.0.1:1/fathom", true));
    QVERIFY2(!window.lastError().contains("hunter2"), qPrintable(window.lastError()));
    QVERIFY2(window.lastError().contains("127.0.0.1"), qPrintable(window.lastError()));
    QVERIFY(!window.statusBar()->currentMessage().contains("hunter2"));
    QVERIFY(!window.windowTitle().contains("hunter2"));
    QVERIFY(!window.openDatabase("mysql://me:hunter2@127.0.0.1/fathom", true));  // unknown scheme
    QVERIFY2(!window.lastError().contains("hunter2"), qPrintable(window.lastError()));
  }

  void childProcessesGetTheStoreInTheirEnvironment() {
    const QString url = "postgresql://me:hunter2@db.lab:5432/fathom";
    const auto env = fathom_environment(url);
    QCOMPARE(env.value("FATHOM_DB"), url);
    QVERIFY(!env.contains("FATHOM_ARTIFACTS"));
    qputenv("FATHOM_ARTIFACTS", dir_.filePath("arts").toUtf8());
    QCOMPARE(fathom_environment(url).value("FATHOM_ARTIFACTS"), dir_.filePath("arts"));
    qunsetenv("FATHOM_ARTIFACTS");

    QTemporaryDir bin;
    qputenv("FATHOM_BIN", fake_fathom(bin).toUtf8());
    QString message;
    QVERIFY2(cancel_sweep(url, "s", &message), qPrintable(message));
    QVERIFY2(!message.contains("hunter2"), qPrintable(message));
    QTRY_COMPARE(read_trimmed(bin.filePath("args.txt")), QString("sweep cancel s"));
    QTRY_COMPARE(read_trimmed(bin.filePath("env.txt")), url);
    // A server store has no run directory to resume into unless one is configured.
    QVERIFY(!resume_run(url, 3, &message));
    QVERIFY2(message.contains("--artifacts") && !message.contains("hunter2"), qPrintable(message));
    qunsetenv("FATHOM_BIN");
  }

  void serverStoreOpensPollsAndHidesThePassword() {
    const std::string url = server_store("fathom_gui_store_url");
    if (url.empty()) QSKIP(fathom::testing::postgres_unavailable()->c_str());
    const QString location = QString::fromStdString(url), password = password_of(location);
    QVERIFY(!password.isEmpty());
    int64_t run = 0;
    auto writer = Store::open(url);
    NewRun r;
    r.name = "live";
    run = writer.create_run(r);
    writer.mark_running(run, "host", "cpu");
    writer.write_metrics(run, loss(10, 30));

    {
      MainWindow window;
      QVERIFY2(window.openDatabase(location, true), qPrintable(window.lastError()));
      QCOMPARE(window.databaseLocation(), location);  // what children get, unchanged
      QVERIFY2(window.windowTitle().contains("***") && !window.windowTitle().contains(password),
               qPrintable(window.windowTitle()));
      QVERIFY(!window.statusBar()->currentMessage().contains(password));
      // The dashboard charts the running run through its own connection to the server.
      QTRY_COMPARE(window.dashboard()->cache().series(run, "train_loss").size(), size_t(3));
      writer.write_metrics(run, loss(40, 60));
      window.pollNow();
      QTRY_COMPARE(window.dashboard()->cache().last_step(run, "train_loss"), int64_t(60));
      window.close();
    }
    QSettings settings;
    for (const QString& recent : settings.value("recentDatabases").toStringList())
      QVERIFY2(!recent.contains(password), "a password in the recent list");
    QVERIFY(!settings.value("lastDatabase").toString().contains(password));

    // A wrong password is refused with a message that shows neither password.
    const QString wrong = QString::fromStdString(
        fathom::testing::postgres_url_with_password("fathom_gui_store_url", "Wr0ngSecret"));
    MainWindow again;
    QVERIFY(!again.openDatabase(wrong, true));
    QVERIFY2(!again.lastError().contains("Wr0ngSecret") && !again.lastError().contains(password),
             qPrintable(again.lastError()));
  }

  void deletingFromAServerStore() {
    const std::string url = server_store("fathom_gui_store_delete");
    if (url.empty()) QSKIP(fathom::testing::postgres_unavailable()->c_str());
    const QString location = QString::fromStdString(url);
    auto store = Store::open(url);
    NewRun r;
    r.name = "done";
    const int64_t first = store.create_run(r), second = store.create_run(r);

    // No artifacts directory: the rows go, and the message says the files stayed.
    QCOMPARE(run_artifacts_dir(location, first), QString());
    QVERIFY(!remove_run_artifacts(location, first));
    QStringList errors;
    QCOMPARE(delete_runs(location, {*store.find_run(std::to_string(first))}, &errors), 1);
    QVERIFY(!store.find_run(std::to_string(first)));
    QCOMPARE(errors.size(), 1);
    QVERIFY2(
        errors[0].contains("no artifacts directory") && !errors[0].contains(password_of(location)),
        qPrintable(errors[0]));

    // $FATHOM_ARTIFACTS (fathom-gui --artifacts): the run's directory goes too.
    const QString arts = dir_.filePath("server-arts");
    qputenv("FATHOM_ARTIFACTS", arts.toUtf8());
    const QString run_dir = run_artifacts_dir(location, second);
    QCOMPARE(run_dir, QDir(arts).filePath(QStringLiteral("run-%1").arg(second)));
    QVERIFY(QDir().mkpath(run_dir));
    errors.clear();
    QCOMPARE(delete_runs(location, {*store.find_run(std::to_string(second))}, &errors), 1);
    QVERIFY2(errors.isEmpty(), qPrintable(errors.join('\n')));
    QVERIFY(!QDir(run_dir).exists());
    qunsetenv("FATHOM_ARTIFACTS");
  }

  void cleanupTestCase() {
    if (fathom::testing::postgres_unavailable()) return;
    for (const char* name : {"fathom_gui_store_url", "fathom_gui_store_delete"}) {
      try {
        fathom::testing::drop_postgres_database(name);
      } catch (...) {
      }
    }
  }
};

FATHOM_GUI_TEST(StoreUrlTest);

}  // namespace test_store_url

#include "test_store_url.moc"
