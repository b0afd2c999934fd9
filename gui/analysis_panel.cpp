#include "gui/analysis_panel.h"

#include <cmath>

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>
#include <nlohmann/json.hpp>
#include <qcustomplot.h>

#include "gui/export_menu.h"
#include "gui/export_targets.h"
#include "plot/analysis_figures.h"
#include "plot/render.h"

namespace fathom::gui {
namespace {

using json = nlohmann::json;

QString number(const json& j, const char* key, int digits = 4) {
  if (!j.contains(key) || !j[key].is_number()) return QStringLiteral("-");
  return QString::number(j[key].get<double>(), 'g', digits);
}

QString text(const json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? QString::fromStdString(j[key].get<std::string>()) : QString();
}

// The on-screen style: the paper figure's layout with screen-sized fonts.
plot::Style screen_style(const QFont& font) {
  plot::Style style;
  style.font_pt = 9;
  style.title_pt = 10;
  style.font_families.prepend(font.family());
  return style;
}

}  // namespace

AnalysisPanel::AnalysisPanel(QWidget* parent) : QWidget(parent) {
  caption_ = new QLabel;
  caption_->setWordWrap(true);
  caption_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  grid_ = new QGridLayout;
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(caption_);
  layout->addLayout(grid_, 1);
  clear();
}

QString AnalysisPanel::caption() const { return caption_->text(); }

void AnalysisPanel::clear() {
  for (QCustomPlot* p : plots_) p->deleteLater();
  plots_.clear();
  if (table_) table_->deleteLater();
  table_ = nullptr;
  caption_->setText(QStringLiteral("Select a result, or compute one below."));
}

void AnalysisPanel::addTable(const QStringList& header, const QList<QStringList>& rows) {
  table_ = new QTableWidget(static_cast<int>(rows.size()), static_cast<int>(header.size()));
  table_->setHorizontalHeaderLabels(header);
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  for (int r = 0; r < rows.size(); ++r)
    for (int c = 0; c < rows[r].size() && c < header.size(); ++c) table_->setItem(r, c, new QTableWidgetItem(rows[r][c]));
  table_->resizeColumnsToContents();
  add_export_menu(table_);
  grid_->addWidget(table_, 1, 0, 1, 2);
}

void AnalysisPanel::showRecord(const db::AnalysisRecord& record) {
  clear();
  const QString source = QStringLiteral("analysis %1").arg(record.id);
  QString words = QStringLiteral("analysis %1: %2").arg(record.id).arg(QString::fromStdString(record.kind));
  if (record.run_id) words += QStringLiteral(" of run %1 (%2 checkpoint)").arg(*record.run_id).arg(QString::fromStdString(record.checkpoint));
  words += QStringLiteral(", took %1 s").arg(record.elapsed_s, 0, 'f', 1);
  json result;
  try {
    result = json::parse(record.result_json);
  } catch (const std::exception& e) {
    caption_->setText(words + QStringLiteral("\nthe stored result is not valid JSON: %1").arg(e.what()));
    return;
  }

  // Tables first: a result that cannot be drawn (ln-scale of a Pre-LN model) still has them.
  if (record.kind == "linearize" && result.contains("layers")) {
    QList<QStringList> rows;
    const json full = result.value("full", json::object());
    rows << QStringList{QStringLiteral("full model"), number(full, "valid_ppl"), "", number(full, "bleu"), "", "", "", "", "", ""};
    for (const auto& l : result["layers"]) {
      const json control = l.value("control", json::object());
      rows << QStringList{text(l, "layer"), number(l, "valid_ppl"), number(l, "ppl_change_pct", 3), number(l, "bleu"),
                          number(l, "bleu_change_pct", 3), number(control, "bleu_change_pct", 3),
                          number(l, "bleu_vs_control_pct", 3), number(l, "steps", 6), number(l, "lstsq_mse"),
                          number(l, "final_mse")};
    }
    addTable({"layer", "valid ppl", "ppl change %", "BLEU", "BLEU change %", "control BLEU change %",
              "BLEU vs control %", "steps", "lstsq mse", "final mse"},
             rows);
    const char* steps_key = result.contains("max_steps") ? "max_steps" : "steps";
    words += QStringLiteral("; objective %1, at most %2 steps, early stopping on validation; control: the layer "
                            "kept, an affine map after it trained the same way")
                 .arg(text(result, "objective"))
                 .arg(number(result, steps_key));
  } else if (record.kind == "ln-scale" && result.contains("norms")) {
    QList<QStringList> rows;
    for (const auto& n : result["norms"])
      rows << QStringList{text(n, "name"), number(n, "w_over_sigma"), number(n, "min"), number(n, "max"), number(n, "sigma")};
    if (!rows.empty()) addTable({"LayerNorm", "w/sigma", "min", "max", "sigma"}, rows);
  } else if (record.kind == "output-shift" && result.contains("configs")) {
    for (const auto& c : result["configs"]) {
      const json lin = c.value("linear", json::object()), log = c.value("log", json::object());
      words += QStringLiteral("\n%1: linear fit R² %2, log fit R² %3").arg(text(c, "label"), number(lin, "r2", 3), number(log, "r2", 3));
    }
  }

  std::vector<plot::NamedFigure> figures;
  try {
    figures = plot::analysis_figures(result, record.kind, source.toStdString());
  } catch (const std::exception& e) {
    words += QStringLiteral("\nno figure: %1").arg(QString::fromUtf8(e.what()));
  }
  const plot::Style style = screen_style(font());
  for (size_t i = 0; i < figures.size(); ++i) {
    auto* plot = new QCustomPlot;
    plot->setMinimumSize(360, 300);
    const plot::Figure& figure = figures[i].second;
    plot::setup_plot(*plot, figure, style);
    plot->replot();
    set_figure_source(plot, [figure]() -> std::optional<plot::Figure> { return figure; });
    add_export_menu(plot);
    plots_ << plot;
    grid_->addWidget(plot, 0, static_cast<int>(i));
  }
  caption_->setText(words);
}

}  // namespace fathom::gui
