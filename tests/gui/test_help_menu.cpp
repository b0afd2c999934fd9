// Help > Keyboard shortcuts lists every shortcut of the window, gathered from its actions (an
// action added anywhere shows up without the list being edited), and Help > About names the
// version and the git revision.
#include <algorithm>

#include <QAction>
#include <QDialog>
#include <QHeaderView>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTest>

#include "base/util/version.h"
#include "gui/dashboard_view.h"
#include "gui/help_menu.h"
#include "gui/main_window.h"
#include "tests/gui/gui_test_registry.h"

using fathom::gui::MainWindow;
using fathom::gui::ShortcutRow;

namespace test_help_menu {

bool has_row(const std::vector<ShortcutRow>& rows, const QString& keys, const QString& what,
             const QString& where) {
  for (const auto& r : rows)
    if (r.keys == keys && r.what.startsWith(what) && r.where == where) return true;
  return false;
}

QString listing(const std::vector<ShortcutRow>& rows) {
  QStringList lines;
  for (const auto& r : rows) lines << r.keys + " | " + r.what + " | " + r.where;
  return lines.join('\n');
}

class HelpMenuTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("fathom-test");
    QCoreApplication::setApplicationName("help-menu-test");
    QSettings().clear();
  }

  void everyShortcutIsListed() {
    MainWindow window;
    const auto rows = fathom::gui::gather_shortcuts(window);
    const QString all = listing(rows);
    // A sample from each menu, as the README's shortcut line has them.
    QVERIFY2(has_row(rows, "Ctrl+E", "Export...", "File"), qPrintable(all));
    QVERIFY2(has_row(rows, "Ctrl+O", "Open run store...", "File"), qPrintable(all));
    QVERIFY2(has_row(rows, "Ctrl+1", "Runs", "View"), qPrintable(all));
    QVERIFY2(has_row(rows, "Ctrl+8", "Probes", "View"), qPrintable(all));
    // The tenth tab on the digit after 9 on the keyboard.
    QVERIFY2(has_row(rows, "Ctrl+0", "Scaling", "View"), qPrintable(all));
    QVERIFY2(has_row(rows, "F5", "Refresh", "View"), qPrintable(all));
    QVERIFY2(has_row(rows, "Ctrl+K", "Cancel", "Run"), qPrintable(all));
    QVERIFY2(has_row(rows, "Del", "Delete", "Run"), qPrintable(all));
    QVERIFY2(has_row(rows, "Ctrl+D", "Dry run", "Sweep"), qPrintable(all));
    QVERIFY2(has_row(rows, "F1", "Keyboard shortcuts", "Help"), qPrintable(all));
    QVERIFY2(has_row(rows, "Esc", "Clear the runs filter", "Runs tab"), qPrintable(all));
    // Menus in the menu bar's order: File's rows before View's, View's before Help's.
    auto first = [&](const QString& menu) {
      for (size_t i = 0; i < rows.size(); ++i)
        if (rows[i].where == menu) return static_cast<int>(i);
      return -1;
    };
    QVERIFY(first("File") < first("View") && first("View") < first("Sweep") &&
            first("Sweep") < first("Help"));
    // Every action of the window that has a shortcut has its row.
    int with_keys = 0;
    for (QAction* a : window.findChildren<QAction*>())
      if (!a->shortcut().isEmpty()) {
        ++with_keys;
        const QString keys = a->shortcut().toString(QKeySequence::NativeText);
        const bool found = std::any_of(rows.begin(), rows.end(),
                                       [&](const ShortcutRow& r) { return r.keys == keys; });
        QVERIFY2(found, qPrintable(keys + " missing from\n" + all));
      }
    QVERIFY(with_keys >= 20);
  }

  // Gathered, not retyped: an action a view adds later is in the list.
  void anActionAddedLaterIsListed() {
    MainWindow window;
    auto* extra = new QAction(QStringLiteral("&Zoom to fit"), window.dashboard());
    extra->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_J));
    window.dashboard()->addAction(extra);
    const auto rows = fathom::gui::gather_shortcuts(window);
    QVERIFY2(has_row(rows, "Ctrl+Shift+J", "Zoom to fit", "Dashboard tab"),
             qPrintable(listing(rows)));
  }

  void dialogShowsEveryRowUncut() {
    MainWindow window;
    window.resize(1100, 700);
    std::unique_ptr<QDialog> dialog(fathom::gui::make_shortcuts_dialog(window));
    dialog->show();
    QVERIFY(QTest::qWaitForWindowExposed(dialog.get()));
    auto* table = dialog->findChild<QTableWidget*>("shortcuts");
    QVERIFY(table);
    QCOMPARE(table->rowCount(), static_cast<int>(fathom::gui::gather_shortcuts(window).size()));
    for (int c = 0; c < 2; ++c)  // keys and actions are never elided
      QVERIFY(table->columnWidth(c) >=
              static_cast<QAbstractItemView*>(table)->sizeHintForColumn(c));
    QVERIFY2(table->horizontalHeader()->length() <= table->viewport()->width(),
             "the dialog is narrower than its columns");
  }

  void helpMenuHasAboutWithVersionAndRevision() {
    MainWindow window;
    QMenu* help = nullptr;
    for (QAction* a : window.menuBar()->actions())
      if (a->text() == "&Help") help = a->menu();
    QVERIFY(help);
    QStringList items;
    for (QAction* a : help->actions()) items << a->text();
    QVERIFY2(items.contains("&About Fathom"), qPrintable(items.join(',')));
    QCoreApplication::setApplicationVersion("9.8.7");
    const QString about = fathom::gui::about_text();
    QVERIFY2(about.contains("9.8.7"), qPrintable(about));
    QVERIFY2(about.contains(QString::fromLatin1(fathom::git_revision())), qPrintable(about));
  }
};

FATHOM_GUI_TEST(HelpMenuTest);

}  // namespace test_help_menu

#include "test_help_menu.moc"
