// The window remembers recent stores, layout and config columns (QSettings), switches views
// from the keyboard, and its screenshot helper writes a PNG per view.
#include <algorithm>

#include <QDir>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include "db/store.h"
#include "gui/app_icon.h"
#include "gui/comparison_view.h"
#include "gui/main_window.h"
#include "gui/runs_view.h"
#include "gui/views.h"
#include "gui/workbench_view.h"
#include "tests/gui/gui_test_registry.h"

using fathom::gui::MainWindow;

namespace test_main_window {

class MainWindowTest : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  QString db_;

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("fathom-test");
    QCoreApplication::setApplicationName("main-window-test");
    QSettings().clear();
    db_ = dir_.filePath("w.db");
    auto store = fathom::db::Store::open(db_.toStdString());
    fathom::db::NewRun r;
    r.name = "one";
    r.config_json = R"({"model":{"norm":"pre"}})";
    store.create_run(r);
  }

  // The compiled-in icon renders: a 64 px pixmap whose corner is transparent (rounded square)
  // and whose centre carries the plumb line's colour (#f2c14e), as resources/fathom.svg draws.
  void appIconIsCompiledInAndRenders() {
    const QIcon icon = fathom::gui::app_icon();
    QVERIFY(!icon.isNull());
    const QImage image = icon.pixmap(64, 64).toImage();
    QCOMPARE(image.size(), QSize(64, 64));
    QCOMPARE(qAlpha(image.pixel(0, 0)), 0);
    const QColor centre = image.pixelColor(32, 8);
    QVERIFY2(centre.red() > 200 && centre.green() > 150 && centre.blue() < 120,
             qPrintable(centre.name()));
  }

  void remembersRecentStoresAndLayout() {
    {
      MainWindow window;
      QVERIFY(window.openDatabase(db_, true));
      window.runsView()->setConfigColumns({"model.norm"});
      // Inside the offscreen platform's screen: Qt 6.8's restoreGeometry narrowed a
      // 1010 x 707 window to 798 x 707 there, Qt 6.4's did not.
      window.resize(720, 540);
      window.close();  // saves the layout
    }
    QSettings settings;
    QCOMPARE(settings.value("recentDatabases").toStringList().value(0),
             QFileInfo(db_).absoluteFilePath());
    QCOMPARE(settings.value("lastDatabase").toString(), QFileInfo(db_).absoluteFilePath());
    MainWindow again;
    QCOMPARE(again.size(), QSize(720, 540));
    QVERIFY(again.openDatabase(db_, true));  // the store's own column choice
    QCOMPARE(again.runsView()->configColumns(), QStringList{"model.norm"});
  }

  void ctrlDigitSwitchesViews() {
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto* tabs = window.findChild<QTabWidget*>();
    QVERIFY(tabs);
    QTest::keyClick(&window, Qt::Key_3, Qt::ControlModifier);
    QCOMPARE(tabs->currentIndex(), 2);
    QTest::keyClick(&window, Qt::Key_1, Qt::ControlModifier);
    QCOMPARE(tabs->currentIndex(), 0);
  }

  // The tabs are gui/views.cpp's list, in its order, each a WorkbenchView; a view's error
  // signal reaches the window without wiring of its own.
  void tabsComeFromTheViewList() {
    MainWindow window;
    auto* tabs = window.findChild<QTabWidget*>();
    QVERIFY(tabs);
    const auto& entries = fathom::gui::workbench_views();
    QCOMPARE(tabs->count(), static_cast<int>(entries.size()));
    for (int i = 0; i < tabs->count(); ++i) {
      QCOMPARE(tabs->tabText(i), entries[static_cast<size_t>(i)].title);
      QVERIFY(dynamic_cast<fathom::gui::WorkbenchView*>(tabs->widget(i)));
    }
    QCOMPARE(tabs->widget(0), static_cast<QWidget*>(window.runsView()));
    emit window.comparison()->error(QStringLiteral("compare: no such sweep"));
    QCOMPARE(window.lastError(), QStringLiteral("compare: no such sweep"));
  }

  void screenshotsOfEveryView() {
    MainWindow window;
    QVERIFY(window.openDatabase(db_, true));
    window.resize(900, 600);
    window.show();
    const QStringList saved = window.saveScreenshots(dir_.filePath("shots"));
    // runs (and filtered), dashboard, sweep editor, compare, analyses, lr, parallel, probes
    // (none recorded: no probes-lines.png; no run trained: no run page), importance, scaling,
    // time to target, then Help's shortcut list
    QStringList names, expected;
    for (const auto& path : saved) names << QFileInfo(path).fileName();
    for (const auto& entry : fathom::gui::workbench_views()) {
      expected << entry.screenshot;
      if (entry.screenshot == QStringLiteral("runs.png"))
        expected << QStringLiteral("runs-filtered.png");
    }
    expected << QStringLiteral("shortcuts.png");
    QCOMPARE(names, expected);
    QCOMPARE(saved.size(), 13);
    for (const auto& path : saved) QVERIFY2(QImage(path).width() > 100, qPrintable(path));
  }

  // A large store's screenshots show 12 runs, not all of them: the running one and the
  // newest that trained (a chart of hundreds of runs shows no run).
  void screenshotsOfALargeStoreShowTwelveRuns() {
    const QString path = dir_.filePath("large.db");
    int64_t live = 0;
    std::vector<int64_t> ids;
    {
      auto store = fathom::db::Store::open(path.toStdString());
      for (int i = 0; i < 30; ++i) {
        fathom::db::NewRun r;
        r.name = "r" + std::to_string(i);
        const int64_t id = store.create_run(r);
        const auto lease = store.mark_running(id, "host", "cpu");
        store.heartbeat(lease, 10);
        if (i == 3) {
          live = id;  // an old run still training
        } else {
          store.finish_run(lease, "finished");
          ids.push_back(id);
        }
      }
    }
    MainWindow window;
    QVERIFY(window.openDatabase(path, true));
    window.resize(900, 600);
    window.show();
    window.saveScreenshots(dir_.filePath("large-shots"));
    std::vector<int64_t> shown;
    for (const auto& r : window.runsView()->selectedRuns()) shown.push_back(r.id);
    std::sort(shown.begin(), shown.end());
    std::vector<int64_t> expected(ids.end() - 11, ids.end());  // the 11 newest finished
    expected.insert(expected.begin(), live);
    QCOMPARE(shown, expected);
  }
};

FATHOM_GUI_TEST(MainWindowTest);

}  // namespace test_main_window

#include "test_main_window.moc"
