#include "gui/export_targets.h"

#include <charconv>

#include <qcustomplot.h>
#include <QAbstractItemView>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>

#include "experiments/text_table.h"
#include "gui/item_roles.h"
#include "plot/export.h"
#include "plot/save.h"

namespace fathom::gui {
namespace {

// Holds a widget's sources as a child object, so they live and die with the widget.
// (No Q_OBJECT: found by name and dynamic_cast, not qobject_cast.)
class ExportSource : public QObject {
 public:
  explicit ExportSource(QObject* parent) : QObject(parent) { setObjectName(kName); }
  static constexpr const char* kName = "fathom-export-source";
  FigureSource figure;
  TableSource table;
  FiguresSource figures;
};

ExportSource* source_of(const QObject* widget) {
  return dynamic_cast<ExportSource*>(widget->findChild<QObject*>(
      QString::fromLatin1(ExportSource::kName), Qt::FindDirectChildrenOnly));
}

ExportSource* ensure_source(QObject* widget) {
  ExportSource* s = source_of(widget);
  return s ? s : new ExportSource(widget);
}

QWidget* exportable_ancestor(QWidget* w, QWidget* scope) {
  for (; w && w != scope->parentWidget(); w = w->parentWidget())
    if (qobject_cast<QCustomPlot*>(w) || qobject_cast<QAbstractItemView*>(w)) return w;
  return nullptr;
}

}  // namespace

void set_figure_source(QCustomPlot* plot, FigureSource source) {
  ensure_source(plot)->figure = std::move(source);
}

std::optional<plot::Figure> figure_to_export(const QCustomPlot* plot) {
  const ExportSource* source = source_of(plot);
  return source && source->figure ? source->figure() : std::nullopt;
}

void set_table_source(QAbstractItemView* view, TableSource source) {
  ensure_source(view)->table = std::move(source);
}

void set_figures_source(QWidget* view, FiguresSource source) {
  ensure_source(view)->figures = std::move(source);
}

bool has_figures_source(const QWidget* view) {
  const ExportSource* source = view ? source_of(view) : nullptr;
  return source && source->figures;
}

bool export_figures(QWidget* view, const QString& path, const plot::FigureSize& size,
                    QStringList* written, QString* error) {
  const ExportSource* source = source_of(view);
  const auto figures = source && source->figures
                           ? source->figures()
                           : std::vector<std::pair<std::string, plot::Figure>>{};
  if (figures.empty()) {
    if (error) *error = QStringLiteral("nothing to export: no plot is drawn");
    return false;
  }
  const QFileInfo info(path);
  plot::ExportOptions options;
  options.size = size;
  for (const auto& [suffix, figure] : figures) {
    const QString file =
        figures.size() == 1
            ? path
            : info.dir().filePath(
                  QStringLiteral("%1-%2.%3")
                      .arg(info.completeBaseName(), QString::fromStdString(suffix), info.suffix()));
    try {
      plot::export_figure(figure, file.toStdString(), options);
    } catch (const std::exception& e) {
      if (error)
        *error = QStringLiteral("cannot export to %1: %2").arg(file, QString::fromUtf8(e.what()));
      return false;
    }
    if (written) *written << QFileInfo(file).absoluteFilePath();
  }
  return true;
}

bool export_plot(QCustomPlot* plot, const QString& path, const plot::FigureSize& size,
                 QString* error) {
  try {
    const std::optional<plot::Figure> figure = figure_to_export(plot);
    if (figure) {
      plot::ExportOptions options;
      options.size = size;
      plot::export_figure(*figure, path.toStdString(), options);
    } else {
      plot::save_plot(*plot, path.toStdString(), size);
    }
    return true;
  } catch (const std::exception& e) {
    if (error)
      *error =
          QStringLiteral("cannot export the plot to %1: %2").arg(path, QString::fromUtf8(e.what()));
    return false;
  }
}

namespace {

// The shortest text that reads back as the same double (C++17 to_chars).
std::string round_trip_text(double v) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, v).ptr;
  return std::string(text, end);
}

}  // namespace

experiments::TextTable table_of_view(const QAbstractItemView* view, bool raw) {
  experiments::TextTable table;
  const QAbstractItemModel* model = view->model();
  if (!model) return table;
  for (int c = 0; c < model->columnCount(); ++c) {
    const QVariant name = model->headerData(c, Qt::Horizontal, kHeaderNameRole);
    table.header.push_back(
        (name.isValid() ? name : model->headerData(c, Qt::Horizontal)).toString().toStdString());
  }
  for (int r = 0; r < model->rowCount(); ++r) {
    std::vector<std::string> row;
    for (int c = 0; c < model->columnCount(); ++c) {
      const QModelIndex index = model->index(r, c);
      const QVariant number = raw ? index.data(kRawValueRole) : QVariant();
      bool ok = false;
      const double v = number.toDouble(&ok);
      row.push_back(number.isValid() && ok ? round_trip_text(v)
                                           : index.data().toString().toStdString());
    }
    table.rows.push_back(std::move(row));
  }
  return table;
}

bool export_table(QAbstractItemView* view, const QString& path, QString* error) {
  const QString format = QFileInfo(path).suffix().toLower();
  if (format != "csv" && format != "md" && format != "tex") {
    if (error) *error = QStringLiteral("%1: a table is written as .csv, .md or .tex").arg(path);
    return false;
  }
  const ExportSource* source = source_of(view);
  const std::string text = source && source->table
                               ? source->table(format.toStdString())
                               : experiments::format_text_table(
                                     table_of_view(view, format == "csv"), format.toStdString());
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly) ||
      file.write(text.data(), static_cast<qint64>(text.size())) !=
          static_cast<qint64>(text.size())) {
    if (error) *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
    return false;
  }
  return true;
}

QWidget* export_target(QWidget* scope) {
  if (!scope) return nullptr;
  if (has_figures_source(scope)) return scope;
  QWidget* focus = QApplication::focusWidget();
  if (focus && (focus == scope || scope->isAncestorOf(focus)))
    if (QWidget* w = exportable_ancestor(focus, scope)) return w;
  for (QCustomPlot* plot : scope->findChildren<QCustomPlot*>())
    if (plot->isVisibleTo(scope) && plot->plottableCount() > 0) return plot;
  for (QAbstractItemView* view : scope->findChildren<QAbstractItemView*>())
    if (view->isVisibleTo(scope) && view->model() && view->model()->columnCount() > 1) return view;
  return nullptr;
}

}  // namespace fathom::gui
