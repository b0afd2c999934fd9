// Grouped bars: one QCPBars per series, placed side by side by a QCPBarsGroup. Fills are
// sampled along the viridis-like gradient (dark to light), so series differ in grey as well.
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "plot/render.h"
#include "plot/render_common.h"

namespace fathom::plot {
namespace {

bool any_error_bar(const BarFigure& f) {
  for (const auto& s : f.series)
    for (double e : s.errors)
      if (std::isfinite(e)) return true;
  return false;
}

// Whiskers on a series' bars: value +- error where both are drawable.
void add_error_bars(QCustomPlot& plot, QCPBars* bars, const BarSeries& s, bool log) {
  QVector<double> errors;
  bool any = false;
  for (size_t g = 0; g < s.values.size(); ++g) {
    const double v = s.values[g];
    const double e = g < s.errors.size() ? s.errors[g] : std::nan("");
    const bool drawn = std::isfinite(v) && std::isfinite(e) && (!log || v > 0);
    errors.push_back(drawn ? e : std::nan(""));
    any = any || drawn;
  }
  if (!any) return;
  auto* whiskers = new QCPErrorBars(plot.xAxis, plot.yAxis);
  whiskers->setDataPlottable(bars);  // placed on its bars, also within a bars group
  whiskers->setData(errors);
  whiskers->setPen(QPen(Qt::black, 0.8 * px_per_pt()));
  whiskers->setWhiskerWidth(6 * px_per_pt());
  whiskers->removeFromLegend();
}

// The lowest and highest values drawn: bars, whisker tops, reference lines ((0, 1) or on a log
// axis (0.1, 1) when there are none).
std::pair<double, double> value_range(const BarFigure& f, bool log) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const auto& s : f.series)
    for (size_t g = 0; g < s.values.size(); ++g) {
      const double v = s.values[g];
      if (!std::isfinite(v) || (log && v <= 0)) continue;
      // The range holds each error bar's top too; its bottom only below a negative bar (an
      // interval of two seeds reaching under 0 must not turn a perplexity axis negative).
      const double e = g < s.errors.size() && std::isfinite(s.errors[g]) ? s.errors[g] : 0;
      lo = std::min(lo, v < 0 ? v - e : v), hi = std::max(hi, v + e);
    }
  for (const auto& ref : f.references)  // a reference line is read against the bars: in range
    if (std::isfinite(ref.value) && (!log || ref.value > 0))
      lo = std::min(lo, ref.value), hi = std::max(hi, ref.value);
  if (!std::isfinite(lo)) return {log ? 0.1 : 0.0, 1.0};
  return {lo, hi};
}

// Each reference as a dashed dark line across every group, named in the legend.
void add_reference_lines(QCustomPlot& plot, const BarFigure& f, bool log) {
  for (size_t i = 0; i < f.references.size(); ++i) {
    const BarReference& ref = f.references[i];
    if (!std::isfinite(ref.value) || (log && ref.value <= 0)) continue;
    QCPGraph* line = plot.addGraph(plot.xAxis, plot.yAxis);
    const double right = static_cast<double>(f.groups.size()) - 0.4;
    line->setData(QVector<double>{-0.6, right}, QVector<double>{ref.value, ref.value}, true);
    QPen pen(QColor(40, 40, 40), 1.2 * px_per_pt(), i % 2 ? Qt::DotLine : Qt::DashLine);
    line->setPen(pen);
    line->setName(detail::qstr(ref.label));
    if (ref.label.empty()) line->removeFromLegend();
  }
}

}  // namespace

void setup_bar_figure(QCustomPlot& plot, const BarFigure& f, const Style& style) {
  detail::reset_plot(plot, f.title, style);
  detail::apply_scale(plot.yAxis, f.y.scale);
  detail::apply_scale(plot.yAxis2, f.y.scale);
  style_axis(plot.yAxis, style, true);
  const bool log = f.y.scale == Scale::Log;

  auto [lo, hi] = value_range(f, log);
  // Bars grow from 0, or on a log axis from a decade below the smallest bar.
  const double base = log ? std::pow(10.0, std::floor(std::log10(lo)) - (lo == hi ? 1 : 0)) : 0.0;

  const int n = static_cast<int>(f.series.size());
  auto* group = new QCPBarsGroup(&plot);
  group->setSpacingType(QCPBarsGroup::stAbsolute);
  group->setSpacing(0);
  QVector<double> keys;
  for (size_t g = 0; g < f.groups.size(); ++g) keys.push_back(static_cast<double>(g));
  for (int k = 0; k < n; ++k) {
    const auto& s = f.series[k];
    auto* bars = new QCPBars(plot.xAxis, plot.yAxis);
    QVector<double> values;
    for (double v : s.values)
      values.push_back(
          std::isfinite(v) && (!log || v > 0) ? v : std::numeric_limits<double>::quiet_NaN());
    bars->setData(keys, values, true);
    bars->setName(detail::qstr(s.name));
    bars->setWidth(0.8 / std::max(1, n));
    bars->setBaseValue(base);
    const double t = n == 1 ? 0.35 : 0.05 + 0.85 * k / (n - 1);
    bars->setBrush(gradient_colour(t));
    bars->setPen(QPen(Qt::black, 0.5 * px_per_pt()));
    bars->setBarsGroup(group);
    if (s.name.empty()) bars->removeFromLegend();
    add_error_bars(plot, bars, s, log);
  }
  if (!f.errors_are.empty() && any_error_bar(f)) {
    // Says what the whiskers are, once: an empty error-bar plottable in the legend.
    auto* key = new QCPErrorBars(plot.xAxis, plot.yAxis);
    key->setPen(QPen(Qt::black, 0.8 * px_per_pt()));
    key->setName(detail::qstr(f.errors_are));
  }

  add_reference_lines(plot, f, log);

  QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
  size_t longest = 0;
  for (size_t g = 0; g < f.groups.size(); ++g) {
    ticker->addTick(static_cast<double>(g), detail::qstr(f.groups[g]));
    longest = std::max(longest, f.groups[g].size());
  }
  plot.xAxis->setTicker(ticker);
  plot.xAxis->setSubTicks(false);
  plot.xAxis->setTickLengthIn(0);
  plot.xAxis2->setTicks(false);
  if (longest > 6 || f.groups.size() * longest > 40) plot.xAxis->setTickLabelRotation(-45);
  plot.xAxis->setRange(-0.6, f.groups.size() - 0.4);
  const double bottom = log ? base : std::min(0.0, lo * 1.1);
  // A linear bar grows from 0, so 0 is in range even when every bar is negative.
  double top = detail::bar_top_without_legend(log ? hi : std::max(hi, base), bottom, log);
  // The legend sits in a top corner: room above the tallest bar or whisker as tall as the
  // legend, so it hides no whisker's top (the interval's upper end is the point of it).
  const double share = detail::legend_height_share(plot);
  if (share > 0 && share < 0.5) {
    const double room = 1 / (1 - share - 0.02);
    top = log ? bottom * std::pow(top / bottom, room) : bottom + (top - bottom) * room;
  }
  plot.yAxis->setRange(bottom, top);
  detail::apply_limits(plot.yAxis, f.y);
  plot.xAxis->setLabel(detail::qstr(f.x_label));
  plot.yAxis->setLabel(detail::qstr(f.y.label));
  detail::finish_legend(plot);
}

}  // namespace fathom::plot
