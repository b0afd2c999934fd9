#include "gui/export_menu.h"

#include <qcustomplot.h>
#include <QAbstractItemView>
#include <QFileInfo>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QStatusBar>

#include "gui/export_targets.h"
#include "gui/file_dialog.h"

namespace fathom::gui {
namespace {

struct Choice {
  QString filter, suffix;
  plot::FigureSize size;
};

const QList<Choice>& plot_choices() {
  static const QList<Choice> choices = {
      {QStringLiteral("PDF, one column (*.pdf)"), "pdf", plot::kColumnSize},
      {QStringLiteral("PDF, page width (*.pdf)"), "pdf", plot::kPageSize},
      {QStringLiteral("SVG, one column (*.svg)"), "svg", plot::kColumnSize},
      {QStringLiteral("SVG, page width (*.svg)"), "svg", plot::kPageSize},
      {QStringLiteral("PNG 300 dpi, one column (*.png)"), "png", plot::kColumnSize},
      {QStringLiteral("PNG 300 dpi, page width (*.png)"), "png", plot::kPageSize},
  };
  return choices;
}

const QList<Choice>& table_choices() {
  static const QList<Choice> choices = {
      {QStringLiteral("Markdown (*.md)"), "md", {}},
      {QStringLiteral("LaTeX, booktabs (*.tex)"), "tex", {}},
      {QStringLiteral("CSV (*.csv)"), "csv", {}},
  };
  return choices;
}

}  // namespace

bool export_with_dialog(QWidget* target, QWidget* parent) {
  const bool many = has_figures_source(target);  // a view of several plots: all of them
  auto* plot = qobject_cast<QCustomPlot*>(target);
  auto* table = many ? nullptr : qobject_cast<QAbstractItemView*>(target);
  if (!plot && !table && !many) {
    QMessageBox::information(
        parent, QStringLiteral("Export"),
        QStringLiteral("Nothing to export here: click a plot or table first."));
    return false;
  }
  const QList<Choice>& choices = table ? table_choices() : plot_choices();
  QStringList filters;
  for (const auto& c : choices) filters << c.filter;
  QString selected = filters.front();
  QString path = choose_file_to_save(parent,
                                     many    ? QStringLiteral("Export every plot (a file each)")
                                     : table ? QStringLiteral("Export table")
                                             : QStringLiteral("Export plot"),
                                     QString(), filters.join(QStringLiteral(";;")), &selected);
  if (path.isEmpty()) return false;
  const Choice& choice = choices.at(std::max<qsizetype>(0, filters.indexOf(selected)));
  if (QFileInfo(path).suffix().isEmpty()) path += "." + choice.suffix;
  QString error;
  QStringList written{QFileInfo(path).absoluteFilePath()};
  bool ok = false;
  if (many) {
    written.clear();
    ok = export_figures(target, path, choice.size, &written, &error);
  } else {
    ok = plot ? export_plot(plot, path, choice.size, &error) : export_table(table, path, &error);
  }
  if (!ok) {
    QMessageBox::warning(parent, QStringLiteral("Export"), error);
    return false;
  }
  // Where the files went, in the window's status bar (a dialog's name field is easy to misread).
  if (auto* window = parent ? qobject_cast<QMainWindow*>(parent->window()) : nullptr)
    window->statusBar()->showMessage(written.size() == 1
                                         ? QStringLiteral("exported to %1").arg(written.front())
                                         : QStringLiteral("exported %1 files: %2")
                                               .arg(written.size())
                                               .arg(written.join(QStringLiteral(", "))),
                                     15000);
  return true;
}

void add_export_menu(QWidget* target) {
  target->setContextMenuPolicy(Qt::CustomContextMenu);
  QObject::connect(target, &QWidget::customContextMenuRequested, target,
                   [target](const QPoint& at) {
                     QMenu menu(target);
                     menu.addAction(QStringLiteral("&Export..."),
                                    [target] { export_with_dialog(target, target->window()); });
                     // The target's own actions follow (a chart's "Enlarge", ...).
                     for (QAction* action : target->actions()) menu.addAction(action);
                     menu.exec(target->mapToGlobal(at));
                   });
}

}  // namespace fathom::gui
