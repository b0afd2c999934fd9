#include "gui/help_menu.h"

#include <algorithm>

#include <QAction>
#include <QApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include "base/util/version.h"

namespace fathom::gui {
namespace {

// "&Export..." -> "Export..."; "&&" stays one ampersand.
QString plain_text(QString text) {
  text.replace(QStringLiteral("&&"), QStringLiteral("\x01"));
  text.remove(QLatin1Char('&'));
  text.replace(QStringLiteral("\x01"), QStringLiteral("&"));
  return text;
}

// The first menu the action is in, with that menu's position in the menu bar (menus not in
// the bar after those that are) and the action's position in the menu.
struct Place {
  QString menu;
  int menu_index = 1 << 20, action_index = 0;
};

// The tab a widget is on ("Runs tab"), "" when it is on none.
QString tab_of(const QWidget* widget) {
  for (const QWidget* w = widget; w && w->parentWidget(); w = w->parentWidget()) {
    auto* tabs = qobject_cast<const QTabWidget*>(w->parentWidget()->parentWidget());
    if (!tabs || !qobject_cast<const QStackedWidget*>(w->parentWidget())) continue;
    const int index = tabs->indexOf(const_cast<QWidget*>(w));
    if (index >= 0) return plain_text(tabs->tabText(index)) + QStringLiteral(" tab");
  }
  return {};
}

Place place_of(QAction* action, const QList<QAction*>& bar) {
  Place p;
  for (QObject* object : action->associatedObjects()) {
    auto* menu = qobject_cast<QMenu*>(object);
    if (!menu) continue;
    p.menu = plain_text(menu->title());
    p.action_index = static_cast<int>(menu->actions().indexOf(action));
    p.menu_index = static_cast<int>(bar.indexOf(menu->menuAction()));
    if (p.menu_index < 0) p.menu_index = 1 << 19;
    return p;
  }
  // In no menu: a view's own action, named by the tab it works on.
  for (QObject* object : action->associatedObjects())
    if (auto* widget = qobject_cast<QWidget*>(object); widget && !tab_of(widget).isEmpty()) {
      p.menu = tab_of(widget);
      break;
    }
  return p;
}

}  // namespace

std::vector<ShortcutRow> gather_shortcuts(const QWidget& root) {
  const auto* window = qobject_cast<const QMainWindow*>(&root);
  const QList<QAction*> bar =
      window && window->menuBar() ? window->menuBar()->actions() : QList<QAction*>();
  struct Found {
    ShortcutRow row;
    Place place;
  };
  std::vector<Found> found;
  for (QAction* action : root.findChildren<QAction*>()) {
    if (action->shortcuts().isEmpty() || action->isSeparator()) continue;
    const Place place = place_of(action, bar);
    QString what = plain_text(action->text());
    if (place.menu.isEmpty() && !action->toolTip().isEmpty() && action->toolTip() != what)
      what += QStringLiteral(" (") + action->toolTip().section(QLatin1String(" ("), 0, 0) + ')';
    for (const QKeySequence& keys : action->shortcuts()) {
      const ShortcutRow row{keys.toString(QKeySequence::NativeText), what, place.menu};
      const bool seen = std::any_of(found.begin(), found.end(), [&](const Found& f) {
        return f.row.keys == row.keys && f.row.what == row.what;
      });
      if (!seen) found.push_back({row, place});
    }
  }
  std::stable_sort(found.begin(), found.end(), [](const Found& a, const Found& b) {
    return std::tie(a.place.menu_index, a.place.action_index) <
           std::tie(b.place.menu_index, b.place.action_index);
  });
  std::vector<ShortcutRow> rows;
  for (auto& f : found) rows.push_back(std::move(f.row));
  return rows;
}

QDialog* make_shortcuts_dialog(QWidget& window) {
  const std::vector<ShortcutRow> rows = gather_shortcuts(window);
  auto* dialog = new QDialog(&window);
  dialog->setWindowTitle(QStringLiteral("Keyboard shortcuts"));
  auto* table = new QTableWidget(static_cast<int>(rows.size()), 3, dialog);
  table->setObjectName(QStringLiteral("shortcuts"));
  table->setHorizontalHeaderLabels({"Keys", "Action", "Menu"});
  table->verticalHeader()->hide();
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table->setSelectionBehavior(QAbstractItemView::SelectRows);
  for (int r = 0; r < static_cast<int>(rows.size()); ++r) {
    table->setItem(r, 0, new QTableWidgetItem(rows[r].keys));
    table->setItem(r, 1, new QTableWidgetItem(rows[r].what));
    table->setItem(r, 2, new QTableWidgetItem(rows[r].where));
  }
  // Rows as tall as their text, so that the whole list shows at once on a laptop.
  table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
  table->resizeColumnsToContents();
  table->horizontalHeader()->setStretchLastSection(true);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
  QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
  auto* layout = new QVBoxLayout(dialog);
  layout->addWidget(table);
  layout->addWidget(buttons);
  // Every row and column in view where the screen allows.
  const int width = table->horizontalHeader()->length() + 60;
  const int height = table->verticalHeader()->length() + table->horizontalHeader()->height() + 90;
  dialog->resize(std::clamp(width, 420, 900), std::clamp(height, 240, 760));
  return dialog;
}

QString about_text() {
  const QString version = QCoreApplication::applicationVersion();
  return QStringLiteral(
             "<h3>Fathom</h3><p>A workbench for research on training deep Transformers.</p>"
             "<p>Version %1<br>git revision %2<br>Qt %3</p>")
      .arg(version.isEmpty() ? QStringLiteral("(unknown)") : version,
           QString::fromLatin1(git_revision()), QString::fromLatin1(qVersion()));
}

void add_help_menu(QMainWindow& window) {
  QMenu* help = window.menuBar()->addMenu(QStringLiteral("&Help"));
  help->addAction(QStringLiteral("&Keyboard shortcuts"), QKeySequence::HelpContents, &window,
                  [&window] {
                    QDialog* dialog = make_shortcuts_dialog(window);
                    dialog->setAttribute(Qt::WA_DeleteOnClose);
                    dialog->show();
                  });
  help->addAction(QStringLiteral("&About Fathom"), &window, [&window] {
    QMessageBox::about(&window, QStringLiteral("About Fathom"), about_text());
  });
}

}  // namespace fathom::gui
