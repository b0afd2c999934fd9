// Line figure: data series as lines with markers; a fit series (fit_of) takes its data series'
// colour, dashed and without markers, so data and fit read apart in grey too.
#include <cmath>
#include <map>

#include "plot/render.h"
#include "plot/render_common.h"

namespace fathom::plot {

namespace {

// Symmetric bars on `graph`'s points in its colour; a point without one (NaN) gets none.
void add_error_bars(QCustomPlot& plot, QCPGraph* graph, const std::vector<double>& err, QPen pen) {
  auto* bars = new QCPErrorBars(plot.xAxis, plot.yAxis);
  bars->removeFromLegend();
  bars->setDataPlottable(graph);
  QVector<double> e;
  for (double v : err) e.push_back(std::isfinite(v) ? v : 0.0);
  bars->setData(e);
  pen.setStyle(Qt::SolidLine);
  bars->setPen(pen);
}

}  // namespace

void setup_line_figure(QCustomPlot& plot, const LineFigure& f, const Style& style) {
  detail::reset_xy_plot(plot, f.title, f.x, f.y, style);

  std::map<std::string, int> index_of;  // data series name -> style index
  int next = 0;
  for (const auto& s : f.series)
    if (s.fit_of.empty()) index_of.emplace(s.name, next++);
  int unnamed = 0;
  for (const auto& s : f.series) {
    auto* graph = plot.addGraph(plot.xAxis, plot.yAxis);
    graph->setData(QVector<double>(s.x.begin(), s.x.end()),
                   QVector<double>(s.y.begin(), s.y.end()));
    graph->setName(detail::qstr(s.name));
    if (s.fit_of.empty()) {
      const int i = s.name.empty() ? next + unnamed++ : index_of[s.name];
      if (f.markers) {
        graph->setPen(series_pen(i, 0, style));  // data: solid, identified by colour and marker
        graph->setScatterStyle(series_scatter(i, i, style));
      } else {
        graph->setPen(series_pen(i, i, style));  // identified by colour and dash
      }
      if (!s.err.empty()) add_error_bars(plot, graph, s.err, series_pen(i, 0, style));
    } else {
      // A line that is a fit of no data series (a reference value drawn across the data) takes
      // a style of its own, dashed.
      auto it = index_of.find(s.fit_of);
      const int i = it == index_of.end() ? next + unnamed++ : it->second;
      QPen pen = series_pen(i, 1, style);
      pen.setWidthF(pen.widthF() * 0.8);
      graph->setPen(pen);
    }
    if (s.name.empty()) graph->removeFromLegend();
  }
  plot.rescaleAxes();
  detail::apply_limits(plot.xAxis, f.x);
  detail::apply_limits(plot.yAxis, f.y);
  // A little air so markers at the ends are not cut by the frame.
  if (f.x.scale == Scale::Linear && !f.x.min && !f.x.max) plot.xAxis->scaleRange(1.06);
  if (f.y.scale == Scale::Linear && !f.y.min && !f.y.max) plot.yAxis->scaleRange(1.1);
  if (f.y.scale == Scale::Log && !f.y.min && !f.y.max) {
    const QCPRange r = plot.yAxis->range();  // the same air, as a factor
    if (r.lower > 0) plot.yAxis->setRange(r.lower / 1.15, r.upper * 1.15);
  }
  if (f.x.scale == Scale::Log && !f.x.min && !f.x.max) {
    const QCPRange r = plot.xAxis->range();  // markers and error bars at the ends whole
    if (r.lower > 0) plot.xAxis->setRange(r.lower / 1.08, r.upper * 1.08);
  }
  plot.xAxis->setLabel(detail::qstr(f.x.label));
  plot.yAxis->setLabel(detail::qstr(f.y.label));
  detail::finish_legend(plot);
}

}  // namespace fathom::plot
