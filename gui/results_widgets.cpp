#include "gui/results_widgets.h"

#include <QHeaderView>
#include <QStringList>
#include <QTableWidget>

#include "gui/export_menu.h"
#include "gui/relayout_on_resize.h"
#include "gui/screen_style.h"
#include "plot/plot_widget.h"
#include "plot/render.h"

namespace fathom::gui {

QCustomPlot* make_figure_plot(const QWidget* view, const std::optional<plot::Figure>& drawn) {
  auto* plot = new plot::PlotWidget;
  plot->setMinimumHeight(220);
  add_export_menu(plot);
  // The legend's columns and font are chosen for the plot's size (plot/render_common.cpp).
  new RelayoutOnResize(plot, [plot, view, &drawn] {
    if (!drawn) return;
    plot::setup_plot(*plot, *drawn, screen_style(view->font()));
    plot->replot();
  });
  return plot;
}

QTableWidget* make_results_table() {
  auto* table = new QTableWidget;
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table->verticalHeader()->hide();
  table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  add_export_menu(table);
  return table;
}

void show_text_table(QTableWidget& table, const experiments::TextTable& text) {
  table.setColumnCount(static_cast<int>(text.header.size()));
  table.setRowCount(static_cast<int>(text.rows.size()));
  QStringList header;
  for (const auto& h : text.header) header << QString::fromStdString(h);
  table.setHorizontalHeaderLabels(header);
  for (size_t r = 0; r < text.rows.size(); ++r)
    for (size_t c = 0; c < text.rows[r].size(); ++c)
      table.setItem(static_cast<int>(r), static_cast<int>(c),
                    new QTableWidgetItem(QString::fromStdString(text.rows[r][c])));
}

}  // namespace fathom::gui
