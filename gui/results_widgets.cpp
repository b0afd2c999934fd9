#include "gui/results_widgets.h"

#include <QHeaderView>
#include <QStringList>
#include <QTableWidget>

#include "gui/export_menu.h"
#include "gui/item_roles.h"
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

QString wrap_joined_name(const QString& name, int width) {
  QStringList lines;
  QString line;
  for (const QString& part : name.split(QLatin1Char('+'))) {
    const QString piece = line.isEmpty() ? part : QLatin1Char('+') + part;
    if (!line.isEmpty() && line.size() + 1 + part.size() > width) {  // 1: the '+' it ends with
      lines << line + QLatin1Char('+');
      line = part;
    } else {
      line += piece;
    }
  }
  lines << line;
  return lines.join(QLatin1Char('\n'));
}

void show_text_table(QTableWidget& table, const experiments::TextTable& text) {
  table.setColumnCount(static_cast<int>(text.header.size()));
  table.setRowCount(static_cast<int>(text.rows.size()));
  for (size_t c = 0; c < text.header.size(); ++c) {
    const QString name = QString::fromStdString(text.header[c]);
    auto* item = new QTableWidgetItem(name);
    if (name.size() > kHeaderLineChars && name.contains(QLatin1Char('+'))) {
      item->setText(wrap_joined_name(name, kHeaderLineChars));
      item->setToolTip(name);
      item->setData(kHeaderNameRole, name);
    }
    table.setHorizontalHeaderItem(static_cast<int>(c), item);
  }
  for (size_t r = 0; r < text.rows.size(); ++r)
    for (size_t c = 0; c < text.rows[r].size(); ++c)
      table.setItem(static_cast<int>(r), static_cast<int>(c),
                    new QTableWidgetItem(QString::fromStdString(text.rows[r][c])));
}

}  // namespace fathom::gui
