#include "plot/parallel_coordinates.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

#include "base/util/error.h"
#include "base/util/same_value.h"
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

// Axis a's stem (over the lines, darker and wider than any of them), its tick marks and its
// values. The values at the stem's ends sit beyond them, centred: no line passes there (the
// lines end at the stems' ends); the inner ones sit right of the stem on a light box. An inner
// value nearer than kMinGap (of the stem's height) to one written already is left out.
void draw_axis(QCustomPlot& plot, int a, const ParallelAxis& axis, const QFont& font) {
  constexpr double kMinGap = 0.05, kTick = 0.03;
  auto* stem = new QCPItemLine(&plot);
  stem->start->setCoords(a, 0);
  stem->end->setCoords(a, 1);
  const QPen pen(QColor(40, 40, 40), 1.6 * px_per_pt(), Qt::SolidLine, Qt::FlatCap);
  stem->setPen(pen);
  stem->setLayer(QStringLiteral("axes"));          // over every line
  std::vector<std::pair<double, QString>> values;  // position, text
  if (!axis.numeric) {
    for (size_t c = 0; c < axis.categories.size(); ++c)
      values.emplace_back(axis_position(axis, static_cast<double>(c)),
                          detail::qstr(axis.categories[c]));
  } else {
    for (double v : axis.ticks) values.emplace_back(axis_position(axis, v), tick_text(v));
  }
  std::sort(values.begin(), values.end());
  std::vector<double> written;
  for (const auto& [position, text] : values) {
    const bool bottom = position <= 1e-9, top = position >= 1 - 1e-9;
    const bool end = (bottom || top) && values.size() > 1;
    if (!end && std::any_of(written.begin(), written.end(),
                            [&](double w) { return std::abs(w - position) < kMinGap; }))
      continue;
    written.push_back(position);
    auto* tick = new QCPItemLine(&plot);
    tick->start->setCoords(a - kTick, position);
    tick->end->setCoords(a + kTick, position);
    tick->setPen(pen);
    tick->setLayer(QStringLiteral("axes"));
    auto* item = new QCPItemText(&plot);
    item->setClipToAxisRect(false);
    item->setLayer(QStringLiteral("axes"));
    item->position->setCoords(a, position);
    item->setFont(font);
    item->setText(text);
    if (end) {  // beyond the stem's end, where no line is
      item->setPositionAlignment(Qt::AlignHCenter | (top ? Qt::AlignBottom : Qt::AlignTop));
      item->setPadding(top ? QMargins(2, 0, 2, 4) : QMargins(2, 4, 2, 0));
    } else {
      item->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
      item->setPadding(QMargins(2, 1, 2, 1));
      item->setBrush(QColor(255, 255, 255, 215));
    }
  }
}

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
      const std::set<double> distinct(numbers.begin(), numbers.end());
      if (distinct.size() <= kMaxTickValues)
        axis.ticks.assign(distinct.begin(), distinct.end());
      else
        axis.ticks = spread_ticks(axis);
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

std::vector<double> spread_ticks(const ParallelAxis& axis) {
  if (!axis.numeric) return {};
  if (axis.max <= axis.min) return {axis.min};
  const double mid = axis.log ? std::sqrt(axis.min * axis.max) : (axis.min + axis.max) / 2;
  return {axis.min, mid, axis.max};
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
  std::vector<int64_t> ids;
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto& r = runs[i];
    labels.push_back(run_short_name(r));
    ids.push_back(r.id);
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
  for (size_t i = 0; i < ids.size(); ++i) figure.lines[i].run_id = ids[i];
  // A metric is continuous: its ends and middle, not each run's value.
  for (size_t a = axes.size(); a < figure.axes.size(); ++a)
    figure.axes[a].ticks = spread_ticks(figure.axes[a]);
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
  plot.xAxis->setTickPen(Qt::NoPen);  // a tick of length 0 is still painted: a dot
  const int n = static_cast<int>(f.axes.size());
  plot.xAxis->setRange(-0.35, std::max(0, n - 1) + 0.35);
  plot.yAxis->setRange(-0.1, 1.1);    // room for the values beyond the stems' ends
  plot.xAxis->setBasePen(Qt::NoPen);  // no frame line for the lines at an end to merge with
  plot.yAxis->setVisible(false);
  plot.xAxis->grid()->setVisible(false);
  plot.yAxis->grid()->setVisible(false);
  QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
  for (int a = 0; a < n; ++a)
    ticker->addTick(a, detail::qstr(f.axes[a].name) + (f.axes[a].log ? " (log)" : ""));
  plot.xAxis->setTicker(ticker);
  plot.xAxis->setTickLabelFont(figure_font(style, style.font_pt));
  const QFont small = figure_font(style, style.font_pt * 0.9);

  add_parallel_lines(plot, f, 0);
  for (int a = 0; a < n; ++a) draw_axis(plot, a, f.axes[a], small);
}

void add_parallel_lines(QCustomPlot& plot, const ParallelFigure& f, size_t from) {
  const int n = static_cast<int>(f.axes.size());
  // The colour axis: the last one (a metric), dark to bright from low to high.
  const ParallelAxis* colour_axis = f.axes.empty() ? nullptr : &f.axes.back();
  // No legend here: a legend item made for each of thousands of curves was most of the set-up.
  const LegendEntriesWhileAlive no_entries(plot, false);
  for (size_t i = from; i < f.lines.size(); ++i) {
    const ParallelLine& line = f.lines[i];
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
}

namespace {
bool same_axis(const ParallelAxis& a, const ParallelAxis& b) {
  return a.name == b.name && a.numeric == b.numeric && a.log == b.log &&
         a.categories == b.categories && a.min == b.min && a.max == b.max && a.ticks == b.ticks;
}
}  // namespace

bool parallel_extends(const ParallelFigure& drawn, ParallelFigure* now) {
  if (drawn.axes.size() != now->axes.size() || now->lines.size() < drawn.lines.size()) return false;
  for (size_t a = 0; a < drawn.axes.size(); ++a)
    if (!same_axis(drawn.axes[a], now->axes[a])) return false;
  std::map<int64_t, size_t> at;  // run id -> its line in `now`
  for (size_t i = 0; i < now->lines.size(); ++i)
    if (now->lines[i].run_id == 0 || !at.emplace(now->lines[i].run_id, i).second) return false;
  std::vector<ParallelLine> ordered;
  std::vector<bool> taken(now->lines.size(), false);
  for (const ParallelLine& old : drawn.lines) {
    const auto found = at.find(old.run_id);
    if (found == at.end()) return false;
    const ParallelLine& line = now->lines[found->second];
    if (line.label != old.label || line.diverged != old.diverged ||
        !same_values(line.values, old.values))
      return false;
    taken[found->second] = true;
    ordered.push_back(line);
  }
  for (size_t i = 0; i < now->lines.size(); ++i)
    if (!taken[i]) ordered.push_back(now->lines[i]);
  now->lines = std::move(ordered);
  return true;
}

}  // namespace fathom::plot
