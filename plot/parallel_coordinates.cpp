#include "plot/parallel_coordinates.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "base/util/error.h"
#include "db/run_status.h"
#include "experiments/sweep_runs.h"
#include "plot/headless.h"
#include "plot/output_format.h"
#include "plot/plot_widget.h"
#include "plot/render_common.h"
#include "plot/run_groups.h"
#include "plot/save.h"
#include "plot/size.h"
#include "plot/style.h"

namespace fathom::plot {
namespace {

bool parse_number(const std::string& text, double* out) {
  if (text.empty()) return false;
  char* end = nullptr;
  *out = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && std::isfinite(*out);
}

// Every digit, so the axis gets the stored value back.
std::string exact_text(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  return buffer;
}

// "0.001" for a tick label: a short, readable number.
QString tick_text(double v) { return QString::number(v, 'g', 3); }

}  // namespace

ParallelFigure parallel_figure(const std::vector<std::string>& axis_names,
                               const std::vector<std::string>& labels,
                               const std::vector<std::vector<std::string>>& rows,
                               const std::vector<bool>& diverged) {
  ParallelFigure f;
  f.lines.resize(rows.size());
  for (size_t r = 0; r < rows.size(); ++r) {
    f.lines[r].label = r < labels.size() ? labels[r] : "";
    f.lines[r].diverged = r < diverged.size() && diverged[r];
    f.lines[r].values.assign(axis_names.size(), kNaN);
  }
  for (size_t a = 0; a < axis_names.size(); ++a) {
    ParallelAxis axis;
    axis.name = axis_names[a];
    std::vector<double> numbers;
    std::set<std::string> texts;
    for (const auto& row : rows) {
      const std::string& cell = a < row.size() ? row[a] : std::string();
      if (cell.empty()) continue;
      double v;
      if (parse_number(cell, &v))
        numbers.push_back(v);
      else
        axis.numeric = false;
      texts.insert(cell);
    }
    if (axis.numeric && !numbers.empty()) {
      axis.min = *std::min_element(numbers.begin(), numbers.end());
      axis.max = *std::max_element(numbers.begin(), numbers.end());
      axis.log = axis.min > 0 && axis.max / axis.min >= 10;  // spans a decade or more
    } else if (!axis.numeric) {
      axis.categories.assign(texts.begin(), texts.end());
    }
    for (size_t r = 0; r < rows.size(); ++r) {
      const std::string& cell = a < rows[r].size() ? rows[r][a] : std::string();
      if (cell.empty()) continue;
      double v;
      if (axis.numeric && parse_number(cell, &v)) {
        f.lines[r].values[a] = v;
      } else if (!axis.numeric) {
        const auto at = std::find(axis.categories.begin(), axis.categories.end(), cell);
        f.lines[r].values[a] = static_cast<double>(at - axis.categories.begin());
      }
    }
    f.axes.push_back(std::move(axis));
  }
  return f;
}

double axis_position(const ParallelAxis& axis, double value) {
  if (std::isnan(value)) return kNaN;
  if (!axis.numeric) {
    const double n = static_cast<double>(axis.categories.size());
    return n <= 1 ? 0.5 : value / (n - 1);
  }
  if (axis.max <= axis.min) return 0.5;
  if (axis.log) return std::log(value / axis.min) / std::log(axis.max / axis.min);
  return (value - axis.min) / (axis.max - axis.min);
}

ParallelFigure parallel_from_store(const db::Store& store, const std::string& sweep,
                                   const std::vector<std::string>& metrics,
                                   const std::string& where) {
  if (metrics.empty()) throw InputError(store.path(), 0, "--metric", "name at least one metric");
  const experiments::SweepRuns selected = experiments::select_sweep_runs(store, sweep, where);
  std::vector<db::RunRecord> runs;
  size_t not_ended = 0;
  for (const auto& r : selected.runs) {
    if (db::status::is_active(r.status))
      ++not_ended;
    else
      runs.push_back(r);
  }
  std::sort(runs.begin(), runs.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  std::vector<Tags> tags;
  std::set<std::string> axes;
  for (const auto& r : runs) {
    tags.push_back(store.tags(r.id));
    for (const auto& [key, value] : tags.back())
      if (key.rfind("axis.", 0) == 0 && !is_seed_key(key)) axes.insert(key.substr(5));
  }
  std::vector<std::string> names(axes.begin(), axes.end());
  names.insert(names.end(), metrics.begin(), metrics.end());
  std::vector<std::string> labels;
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> diverged;
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto& r = runs[i];
    labels.push_back(run_short_name(r));
    diverged.push_back(r.status == db::status::kDiverged || r.diverged_step.has_value());
    std::vector<std::string> row;
    for (const auto& key : axes) row.push_back(run_value(tags[i], r.config_json, key));
    for (const auto& m : metrics) {
      auto it = r.final_metrics.find(m);
      row.push_back(
          it == r.final_metrics.end() || !std::isfinite(it->second) ? "" : exact_text(it->second));
    }
    rows.push_back(std::move(row));
  }
  ParallelFigure figure = parallel_figure(names, labels, rows, diverged);
  figure.not_ended = not_ended;
  figure.where_note = selected.note();
  return figure;
}

void export_parallel(const ParallelFigure& figure, const std::string& path,
                     const ExportOptions& options) {
  format_for_path(path);  // a bad extension fails before Qt starts
  ensure_application(/*force_offscreen=*/true);
  PlotWidget plot;
  plot.resize(logical_size(options.size));
  setup_parallel_coordinates(plot, figure, Style{});
  save_plot(plot, path, options.size, options.dpi);
}

void setup_parallel_coordinates(QCustomPlot& plot, const ParallelFigure& f, const Style& style) {
  // The colour key as the title row: inside the plot it would cross the lines.
  const std::string key = f.axes.empty() ? ""
                                         : "colour: " + f.axes.back().name +
                                               " (dark low, bright high); red dashed: "
                                               "diverged";
  detail::reset_plot(plot, key, style);
  if (!key.empty()) {  // the title row's text at the tick font, not the title's
    for (int i = 0; i < plot.plotLayout()->elementCount(); ++i)
      if (auto* text = qobject_cast<QCPTextElement*>(plot.plotLayout()->elementAt(i)))
        text->setFont(figure_font(style, style.font_pt * 0.9));
  }
  // No box: the value axes are the vertical lines drawn below.
  plot.xAxis2->setVisible(false);
  plot.yAxis2->setVisible(false);
  plot.xAxis->setSubTicks(false);
  plot.xAxis->setTickLength(0, 0);
  const int n = static_cast<int>(f.axes.size());
  plot.xAxis->setRange(-0.35, std::max(0, n - 1) + 0.35);
  plot.yAxis->setRange(-0.08, 1.08);
  plot.yAxis->setVisible(false);
  plot.xAxis->grid()->setVisible(false);
  plot.yAxis->grid()->setVisible(false);
  QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
  for (int a = 0; a < n; ++a)
    ticker->addTick(a, detail::qstr(f.axes[a].name) + (f.axes[a].log ? " (log)" : ""));
  plot.xAxis->setTicker(ticker);
  plot.xAxis->setTickLabelFont(figure_font(style, style.font_pt));
  const QFont small = figure_font(style, style.font_pt * 0.9);

  // The colour axis: the last one (a metric), dark to bright from low to high.
  const ParallelAxis* colour_axis = f.axes.empty() ? nullptr : &f.axes.back();
  for (const ParallelLine& line : f.lines) {
    QColor colour(200, 40, 40);
    if (!line.diverged && colour_axis) {
      const double t = axis_position(*colour_axis, line.values.back());
      colour = std::isnan(t) ? QColor(150, 150, 150) : gradient_colour(t);
    }
    auto* curve = new QCPCurve(plot.xAxis, plot.yAxis);
    QVector<double> keys, values;
    for (int a = 0; a < n; ++a) {
      keys << a;
      values << axis_position(f.axes[a], line.values[a]);  // NaN breaks the line
    }
    curve->setData(keys, values);
    QPen pen(colour, 1.1 * px_per_pt());
    if (line.diverged) pen.setStyle(Qt::DashLine);
    curve->setPen(pen);
    curve->setName(detail::qstr(line.label));
  }

  // Each axis: a vertical line and its values (categories, or min, middle and max).
  for (int a = 0; a < n; ++a) {
    const ParallelAxis& axis = f.axes[a];
    auto* stem = new QCPItemLine(&plot);
    stem->start->setCoords(a, 0);
    stem->end->setCoords(a, 1);
    stem->setPen(QPen(QColor(90, 90, 90), 0.8 * px_per_pt()));
    auto label = [&](double position, const QString& text) {
      auto* item = new QCPItemText(&plot);
      item->position->setCoords(a, position);
      item->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
      item->setPadding(QMargins(3, 0, 0, 0));
      item->setFont(small);
      item->setText(text);
    };
    if (!axis.numeric) {
      for (size_t c = 0; c < axis.categories.size(); ++c)
        label(axis_position(axis, static_cast<double>(c)), detail::qstr(axis.categories[c]));
    } else if (axis.max > axis.min) {
      const double mid = axis.log ? std::sqrt(axis.min * axis.max) : (axis.min + axis.max) / 2;
      for (double v : {axis.min, mid, axis.max}) label(axis_position(axis, v), tick_text(v));
    } else {
      label(0.5, tick_text(axis.min));
    }
  }
}

}  // namespace fathom::plot
