#pragma once
// The widgets a sweep view shows its results in, made alike: a plot that lays the figure it
// drew out again when resized (its legend's columns follow its size) and exports from its
// right-click menu, and a read-only table of text that exports the same way.
#include <QString>
#include <optional>

#include "experiments/text_table.h"
#include "plot/figure.h"

class QCustomPlot;
class QTableWidget;
class QWidget;

namespace fathom::gui {

// `drawn` is the figure the plot shows (the view's member, nullopt when none), laid out again
// on a resize in `view`'s font.
QCustomPlot* make_figure_plot(const QWidget* view, const std::optional<plot::Figure>& drawn);
// No edits, no row numbers, columns as wide as their text.
QTableWidget* make_results_table();
// The table's header and cells, replacing what it showed. A header longer than
// kHeaderLineChars that joins keys with '+' (a zip group's name) shows wrapped after its '+',
// the whole name in its tooltip and in exports (kHeaderNameRole).
void show_text_table(QTableWidget& table, const experiments::TextTable& text);
inline constexpr int kHeaderLineChars = 40;
// `name` as lines of at most `width` characters (the '+' that ends a line not counted), broken
// only after a '+'; a part longer than `width` keeps a line of its own.
QString wrap_joined_name(const QString& name, int width);

}  // namespace fathom::gui
