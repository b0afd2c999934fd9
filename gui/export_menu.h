#pragma once
// The export dialogs: File > Export... (Ctrl+E) and the right-click menu of every plot and
// table ask for a file and write it through export_targets.h.
class QWidget;

namespace fathom::gui {

// Asks for a file name (plots: PNG, PDF or SVG at one-column or page width; tables: CSV,
// Markdown or LaTeX) and writes `target`, a QCustomPlot or a QAbstractItemView. Failures are
// shown in a message box. Returns whether a file was written.
bool export_with_dialog(QWidget* target, QWidget* parent);

// Gives a plot or table a right-click menu with Export....
void add_export_menu(QWidget* target);

}  // namespace fathom::gui
