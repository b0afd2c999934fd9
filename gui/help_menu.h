#pragma once
// The Help menu: a list of every keyboard shortcut of the window, gathered from its actions
// when it opens (so it never disagrees with the menus), and an About box with the version and
// the git revision the app was built from.
#include <vector>

#include <QString>

class QDialog;
class QMainWindow;
class QWidget;

namespace fathom::gui {

// One keyboard shortcut: its keys as the platform writes them ("Ctrl+E"), what it does (the
// action's text, "Export..."), and where the action lives (its menu, "File").
struct ShortcutRow {
  QString keys, what, where;
};

// Every shortcut of every QAction under `root` (menus, tool bars, views' own actions), one row
// per key sequence, ordered by menu in the menu bar's order, then by its position there;
// actions in no menu last. An action without a shortcut is left out.
std::vector<ShortcutRow> gather_shortcuts(const QWidget& root);

// Adds Help > Keyboard shortcuts (F1) and Help > About Fathom to the window's menu bar.
void add_help_menu(QMainWindow& window);

// The dialogs behind those entries, not yet shown (tests read them).
QDialog* make_shortcuts_dialog(QWidget& window);
QString about_text();  // version, git revision, Qt version

}  // namespace fathom::gui
