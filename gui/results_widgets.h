#pragma once
// The widgets a sweep view shows its results in, made alike: a plot that lays the figure it
// drew out again when resized (its legend's columns follow its size) and exports from its
// right-click menu, and a read-only table of text that exports the same way.
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
// The table's header and cells, replacing what it showed.
void show_text_table(QTableWidget& table, const experiments::TextTable& text);

}  // namespace fathom::gui
