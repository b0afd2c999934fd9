// Training curves: one graph per (run, metric). Runs (or colour groups) differ in colour and
// marker; a second metric of the same run gets another dash pattern. With smoothing the raw
// curve stays visible as a faint line behind the debiased EMA. Long curves are decimated.
#include <cmath>
#include <limits>
#include <map>

#include "plot/decimate.h"
#include "plot/render.h"
#include "plot/render_common.h"
#include "plot/smoothing.h"

namespace fathom::plot {
namespace {

// Inf (a blown-up loss) would stretch the axis to nothing; draw it as a gap like NaN.
std::vector<double> finite_or_nan(std::vector<double> v) {
  for (double& x : v)
    if (!std::isfinite(x)) x = kNaN;
  return v;
}

QCPGraph* add_graph(QCustomPlot& plot, const std::vector<double>& x, const std::vector<double>& y,
                    int buckets) {
  const XY kept = decimate_minmax(x, y, buckets);
  auto* graph = plot.addGraph(plot.xAxis, plot.yAxis);
  graph->setData(QVector<double>(kept.x.begin(), kept.x.end()),
                 QVector<double>(kept.y.begin(), kept.y.end()), true);
  graph->setAdaptiveSampling(false);  // already decimated; keeps vector output exact
  return graph;
}

QCPGraph* add_decimated(QCustomPlot& plot, const std::vector<double>& x,
                        const std::vector<double>& y) {
  auto* graph = plot.addGraph(plot.xAxis, plot.yAxis);
  graph->setData(QVector<double>(x.begin(), x.end()), QVector<double>(y.begin(), y.end()), true);
  graph->setAdaptiveSampling(false);
  return graph;
}

// Update counts as 20k, 1.5M: "200000" ticks crowd a column-wide axis.
class StepTicker : public QCPAxisTicker {
 protected:
  QString getTickLabel(double tick, const QLocale& locale, QChar format, int precision) override {
    const double magnitude = std::abs(tick);
    if (magnitude >= 1e9) return QString::number(tick / 1e9, 'g', 4) + QStringLiteral("G");
    if (magnitude >= 1e6) return QString::number(tick / 1e6, 'g', 4) + QStringLiteral("M");
    if (magnitude >= 1e4) return QString::number(tick / 1e3, 'g', 4) + QStringLiteral("k");
    return QCPAxisTicker::getTickLabel(tick, locale, format, precision);
  }
};

}  // namespace

namespace {

std::vector<CurveGraphs> setup_curves(QCustomPlot& plot, const CurveFigure& f, const Style& style,
                                      const std::vector<PreparedCurve>* prepared) {
  std::vector<CurveGraphs> graphs;
  detail::reset_xy_plot(plot, f.title, f.x, f.y, style);
  const bool time_axis = f.x_kind == "time" && f.x.scale == Scale::Linear;
  QSharedPointer<QCPAxisTickerTime> time_ticker;
  if (time_axis) {
    time_ticker.reset(new QCPAxisTickerTime);
    plot.xAxis->setTicker(time_ticker);
  } else if (f.x.scale == Scale::Linear) {
    plot.xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new StepTicker));
  }

  std::map<std::string, int> group_of, metric_of;
  for (const auto& c : f.curves) {
    if (!c.colour_key.empty()) group_of.emplace(c.colour_key, static_cast<int>(group_of.size()));
    metric_of.emplace(c.metric, static_cast<int>(metric_of.size()));
  }
  const bool many_metrics = metric_of.size() > 1;
  int next_group = static_cast<int>(group_of.size());
  bool diverged_in_legend = false, stop_in_legend = false;
  // A scatter graph of markers: a diverged run's end (black), diverged group members (the
  // group's colour), a group's early end. "diverged" gets one legend entry.
  auto add_marks = [&](const std::vector<double>& x, const std::vector<double>& y,
                       QCPScatterStyle::ScatterShape shape, const QColor& colour,
                       const QString& name, bool& in_legend) {
    auto* mark = plot.addGraph(plot.xAxis, plot.yAxis);
    mark->setData(QVector<double>(x.begin(), x.end()), QVector<double>(y.begin(), y.end()));
    mark->setLineStyle(QCPGraph::lsNone);
    mark->setScatterStyle(QCPScatterStyle(shape, QPen(colour, 1.2 * px_per_pt()), Qt::NoBrush,
                                          2 * style.marker_pt * px_per_pt()));
    mark->setName(name);
    if (in_legend) mark->removeFromLegend();
    in_legend = true;
    return mark;
  };

  for (size_t index = 0; index < f.curves.size(); ++index) {
    const Curve& c = f.curves[index];
    const PreparedCurve* ready = prepared ? &(*prepared)[index] : nullptr;
    CurveGraphs& drawn = graphs.emplace_back();
    const int group = c.style >= 0           ? c.style
                      : c.colour_key.empty() ? next_group++
                                             : group_of[c.colour_key];
    const int dash = many_metrics ? metric_of[c.metric] : group;
    std::vector<double> raw, shown;
    if (!ready) shown = raw = finite_or_nan(c.value);
    // A group's band, under its mean: the members' spread, smoothed as the mean is.
    const bool band = ready ? !ready->lo_x.empty() : !c.band_lo.empty();
    if (band) {
      auto smooth = [&](const std::vector<double>& v) {
        return f.smoothing > 0 ? debiased_ema(finite_or_nan(v), f.smoothing) : finite_or_nan(v);
      };
      drawn.band_lo = ready ? add_decimated(plot, ready->lo_x, ready->lo_y)
                            : add_graph(plot, c.step, smooth(c.band_lo), style.decimation_buckets);
      drawn.band_hi = ready ? add_decimated(plot, ready->hi_x, ready->hi_y)
                            : add_graph(plot, c.step, smooth(c.band_hi), style.decimation_buckets);
      QColor fill = series_colour(group);
      fill.setAlpha(50);
      for (QCPGraph* edge : {drawn.band_lo, drawn.band_hi}) {
        edge->setPen(Qt::NoPen);
        edge->removeFromLegend();
      }
      drawn.band_hi->setBrush(fill);
      drawn.band_hi->setChannelFillGraph(drawn.band_lo);
    }
    if (f.smoothing > 0 && (!ready || !ready->raw_x.empty())) {
      if (!ready) shown = debiased_ema(raw, f.smoothing);
      QCPGraph* faint = ready ? add_decimated(plot, ready->raw_x, ready->raw_y)
                              : add_graph(plot, c.step, raw, style.decimation_buckets);
      QColor colour = series_colour(group);
      colour.setAlpha(60);
      faint->setPen(QPen(colour, 0.5 * px_per_pt()));
      faint->removeFromLegend();
      drawn.raw = faint;
    }
    QCPGraph* graph = ready ? add_decimated(plot, ready->x, ready->y)
                            : add_graph(plot, c.step, shown, style.decimation_buckets);
    drawn.line = graph;
    graph->setPen(series_pen(group, dash, style));
    graph->setScatterStyle(series_scatter(group, group, style));
    // About six markers per curve: enough to tell curves apart, few enough not to clutter.
    graph->setScatterSkip(std::max(0, graph->dataCount() / 6 - 1));
    graph->setName(detail::qstr(c.label));
    if (c.label.empty()) graph->removeFromLegend();

    if (!c.ends.empty()) {  // diverged members, in the group's colour
      std::vector<double> ex, ey;
      for (const auto& e : c.ends) ex.push_back(e.x), ey.push_back(e.y);
      add_marks(ex, ey, QCPScatterStyle::ssCross, series_colour(group), QStringLiteral("diverged"),
                diverged_in_legend);
    }
    if (c.stopped_early) {  // the mean's last point: fewer than half the members go on
      const std::vector<double>& xs = ready ? ready->x : c.step;
      const std::vector<double>& ys = ready ? ready->y : shown;
      size_t last = std::min(xs.size(), ys.size());
      while (last > 0 && !std::isfinite(ys[last - 1])) --last;
      if (last > 0)
        add_marks({xs[last - 1]}, {ys[last - 1]}, QCPScatterStyle::ssCircle, series_colour(group),
                  QStringLiteral("mean ends: < half the runs left"), stop_in_legend);
    }

    if (c.diverged_step) {
      // Mark the last finite value at or before the divergence.
      double y = kNaN, x = *c.diverged_step;
      if (ready)
        y = ready->diverged_y;
      else
        for (size_t i = 0; i < c.step.size() && c.step[i] <= *c.diverged_step; ++i)
          if (std::isfinite(shown[i])) y = shown[i];
      if (std::isnan(y)) continue;
      drawn.mark = add_marks({x}, {y}, QCPScatterStyle::ssCross, Qt::black,
                             QStringLiteral("diverged"), diverged_in_legend);
    }
  }
  plot.rescaleAxes();
  if (f.y.scale == Scale::Linear && !f.y.min && !f.y.max) plot.yAxis->scaleRange(1.05);
  detail::apply_limits(plot.xAxis, f.x);
  detail::apply_limits(plot.yAxis, f.y);
  std::string y_label = f.y.label;
  if (y_label.empty())
    for (const auto& [metric, index] : metric_of) y_label += (y_label.empty() ? "" : ", ") + metric;
  std::string x_label = f.x.label;
  if (time_axis) {
    const bool hours = plot.xAxis->range().upper >= 3600;
    time_ticker->setTimeFormat(hours ? QStringLiteral("%h:%m") : QStringLiteral("%m:%s"));
    x_label += hours ? " (h:mm)" : " (m:ss)";
  }
  if (!f.band.empty() && !f.curves.empty()) {
    // Says what the shading is, once: an empty graph with the band's look in the legend.
    auto* key = plot.addGraph(plot.xAxis, plot.yAxis);
    key->setPen(Qt::NoPen);
    key->setBrush(QColor(0, 0, 0, 50));
    key->setName(f.band == "std" ? QStringLiteral("shaded: mean \u00b1 1 std")
                                 : QStringLiteral("shaded: min to max"));
  }
  plot.xAxis->setLabel(detail::qstr(x_label));
  plot.yAxis->setLabel(detail::qstr(y_label));
  if (style.legend)
    detail::finish_legend(plot);
  else if (plot.legend)
    plot.legend->setVisible(false);  // left in its inset: it takes no room from the plot
  return graphs;
}

}  // namespace

void setup_curve_figure(QCustomPlot& plot, const CurveFigure& f, const Style& style) {
  setup_curves(plot, f, style, nullptr);
}

std::vector<CurveGraphs> setup_curve_figure(QCustomPlot& plot, const CurveFigure& f,
                                            const Style& style,
                                            const std::vector<PreparedCurve>& prepared) {
  return setup_curves(plot, f, style, &prepared);
}

}  // namespace fathom::plot
