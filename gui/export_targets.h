#pragma once
// What File > Export... and the right-click menus of plots and tables write, through the
// command line's own code: a plot's figure re-drawn at paper size by plot/export.h (what
// `fathom export plot` does), or -- for a plot with no figure behind it -- the plot as shown,
// saved by plot/save.h; a table as CSV, Markdown or LaTeX by experiments/text_table.h, or by
// the view's own renderer where it has one (the comparison table: `fathom export table`).
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <QString>
#include <QStringList>

#include "plot/figure.h"
#include "plot/size.h"

class QAbstractItemView;
class QCustomPlot;
class QWidget;

namespace fathom::experiments {
struct TextTable;
}

namespace fathom::gui {

// The figure a plot shows now (nullopt: nothing to draw).
using FigureSource = std::function<std::optional<plot::Figure>()>;
// A table's text in "csv", "md" or "tex".
using TableSource = std::function<std::string(const std::string& format)>;
// A view of several plots (the Probes tab: one per selected run): each figure with the suffix
// its file gets ("run12"), in the view's order.
using FiguresSource = std::function<std::vector<std::pair<std::string, plot::Figure>>()>;

void set_figure_source(QCustomPlot* plot, FigureSource source);
// The figure Export... draws for `plot`: its source's; nullopt where it has none (the plot is
// saved as drawn) or nothing to draw.
std::optional<plot::Figure> figure_to_export(const QCustomPlot* plot);
// File > Export... on `view` then writes every one of its figures, a file each.
void set_figures_source(QWidget* view, FiguresSource source);
bool has_figures_source(const QWidget* view);
void set_table_source(QAbstractItemView* view, TableSource source);

// Writes `path` in the format of its extension: .png, .pdf, .svg for plots (PNG at 300 dpi),
// .csv, .md, .tex for tables. false and *error when it cannot.
bool export_plot(QCustomPlot* plot, const QString& path, const plot::FigureSize& size,
                 QString* error);
bool export_table(QAbstractItemView* view, const QString& path, QString* error);
// Writes each figure of a view with a figures source: `path` itself for one figure, else
// "probes-run12.pdf" beside "probes.pdf" (its suffix before the extension) for each. The paths
// written go to *written. false and *error when there is nothing to write or a write fails.
bool export_figures(QWidget* view, const QString& path, const plot::FigureSize& size,
                    QStringList* written, QString* error);

// A view's cells as shown (sorted, filtered), with its column headers. `raw`: a cell's
// kRawValueRole (gui/item_roles.h) number where its model gives one (a CSV for scripts), else its
// text.
experiments::TextTable table_of_view(const QAbstractItemView* view, bool raw = false);

// What File > Export... acts on inside `scope` (the current tab): the tab itself when it has a
// figures source (all its plots at once), else the plot or table that has the focus or holds
// it, else the first visible plot, else the first visible table; nullptr when there is none.
QWidget* export_target(QWidget* scope);

}  // namespace fathom::gui
