// Training curves: one graph per (run, metric). Runs (or colour groups) differ in colour and
// marker; a second metric of the same run gets another dash pattern. With smoothing the raw
// curve stays visible as a faint line behind the debiased EMA. Long curves are decimated.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "db/metric_presentation.h"
#include "plot/decimate.h"
#include "plot/plot_widget.h"
#include "plot/render.h"
#include "plot/render_common.h"
#include "plot/smoothing.h"
#include "plot/whole_number_ticker.h"

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

// Update counts as 20k, 1.5M: "200000" ticks crowd a column-wide axis; whole numbers only (a
// run of ten updates has no update 2.5).
class StepTicker : public detail::WholeNumberTicker {
 protected:
  QString getTickLabel(double tick, const QLocale& locale, QChar format, int precision) override {
    const double magnitude = std::abs(tick);
    // Training FLOPs reach 1e15-1e21: SI prefixes up to zetta, then powers of ten.
    if (magnitude >= 1e24) return QString::number(tick, 'g', 3);
    static const std::pair<double, const char*> kPrefixes[] = {
        {1e21, "Z"}, {1e18, "E"}, {1e15, "P"}, {1e12, "T"}, {1e9, "G"}};
    for (const auto& [scale, prefix] : kPrefixes)
      if (magnitude >= scale) return QString::number(tick / scale, 'g', 4) + QLatin1String(prefix);
    if (magnitude >= 1e6) return QString::number(tick / 1e6, 'g', 4) + QStringLiteral("M");
    if (magnitude >= 1e4) return QString::number(tick / 1e3, 'g', 4) + QStringLiteral("k");
    return WholeNumberTicker::getTickLabel(tick, locale, format, precision);
  }
};

}  // namespace

namespace {

// Draws a CurveFigure on a plot, a step per element: axes, then each curve (band, faint raw
// line, the shown line, its marks), then labels and legend. `prepared` (the desktop app's
// background thread) replaces computing each curve's smoothed and decimated points here.
class CurveDrawer {
 public:
  CurveDrawer(QCustomPlot& plot, const CurveFigure& f, const Style& style,
              const std::vector<PreparedCurve>* prepared)
      : plot_(plot), f_(f), style_(style), prepared_(prepared) {}

  std::vector<CurveGraphs> draw() {
    // A hidden legend (the dashboard's charts share one of their own) gets no entries:
    // thousands of runs' curves paid for entries no one sees (plot_widget.h).
    const LegendEntriesWhileAlive entries(plot_, style_.legend);
    set_up_axes();
    number_groups_and_metrics();
    std::vector<CurveGraphs> graphs;
    for (size_t index = 0; index < f_.curves.size(); ++index)
      graphs.push_back(draw_curve(f_.curves[index], prepared_ ? &(*prepared_)[index] : nullptr));
    fit_axes();
    draw_budget_line();
    label_axes();
    add_band_key();
    add_spike_key();
    add_fork_key();
    add_milestone_key();
    add_read_key();
    if (style_.legend)
      detail::finish_legend(plot_);
    else if (plot_.legend)
      plot_.legend->setVisible(false);  // left in its inset: it takes no room from the plot
    return graphs;
  }

 private:
  void set_up_axes() {
    detail::reset_xy_plot(plot_, f_.title, f_.x, f_.y, style_);
    if (time_axis()) {
      time_ticker_.reset(new QCPAxisTickerTime);
      plot_.xAxis->setTicker(time_ticker_);
    } else if (f_.x.scale == Scale::Linear) {
      plot_.xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new StepTicker));
    }
  }

  bool time_axis() const { return f_.x_kind == "time" && f_.x.scale == Scale::Linear; }

  // Colour groups and metrics in order of first appearance: a curve's colour and marker come
  // from its group, its dash from its metric when there are several.
  void number_groups_and_metrics() {
    for (const auto& c : f_.curves) {
      if (!c.colour_key.empty())
        group_of_.emplace(c.colour_key, static_cast<int>(group_of_.size()));
      metric_of_.emplace(c.metric, static_cast<int>(metric_of_.size()));
    }
    next_group_ = static_cast<int>(group_of_.size());
  }

  int group_of(const Curve& c) {
    if (c.style >= 0) return c.style;
    return c.colour_key.empty() ? next_group_++ : group_of_[c.colour_key];
  }

  CurveGraphs draw_curve(const Curve& c, const PreparedCurve* ready) {
    CurveGraphs drawn;
    const int group = group_of(c);
    const int dash = metric_of_.size() > 1 ? metric_of_[c.metric] : group;
    std::vector<double> raw, shown;
    if (!ready) {
      raw = finite_or_nan(c.value);
      shown = f_.smoothing > 0 ? debiased_ema(raw, f_.smoothing) : raw;
    }
    if (ready ? !ready->lo_x.empty() : !c.band_lo.empty()) draw_band(c, ready, group, drawn);
    if (f_.smoothing > 0 && (!ready || !ready->raw_x.empty())) {
      drawn.raw = ready ? add_decimated(plot_, ready->raw_x, ready->raw_y)
                        : add_graph(plot_, c.step, raw, style_.decimation_buckets);
      QColor colour = series_colour(group);
      colour.setAlpha(60);
      drawn.raw->setPen(QPen(colour, 0.5 * px_per_pt()));
      drawn.raw->removeFromLegend();
    }
    QCPGraph* line = ready ? add_decimated(plot_, ready->x, ready->y)
                           : add_graph(plot_, c.step, shown, style_.decimation_buckets);
    drawn.line = line;
    line->setPen(series_pen(group, dash, style_));
    if (style_.markers && lines_marked(f_.curves.size())) {
      line->setScatterStyle(series_scatter(group, group, style_));
      // About six markers per curve: enough to tell curves apart, few enough not to clutter.
      line->setScatterSkip(std::max(0, line->dataCount() / 6 - 1));
    }
    line->setName(detail::qstr(c.label));
    if (c.label.empty()) line->removeFromLegend();

    if (!c.ends.empty()) {  // diverged members, in the group's colour
      std::vector<double> ex, ey;
      for (const auto& e : c.ends) ex.push_back(e.x), ey.push_back(e.y);
      add_marks(ex, ey, QCPScatterStyle::ssCross, series_colour(group), QStringLiteral("diverged"),
                diverged_in_legend_);
    }
    if (c.stopped_early)
      mark_early_stop(ready ? ready->x : c.step, ready ? ready->y : shown, group);
    if (c.diverged_step) drawn.mark = mark_divergence(c, ready, shown);
    if (c.fork_step)
      mark_on_line(*c.fork_step, ready ? ready->x : c.step, ready ? ready->y : shown, group,
                   QCPScatterStyle::ssDiamond);
    for (double x : c.milestone_x)
      mark_on_line(x, ready ? ready->x : c.step, ready ? ready->y : shown, group,
                   QCPScatterStyle::ssTriangle);
    if (c.read_x && c.read_y) {  // at the raw value the comparison read; add_read_key says so
      bool no_entry = true;
      add_marks({*c.read_x}, {*c.read_y}, QCPScatterStyle::ssSquare, series_colour(group),
                QString(), no_entry);
    }
    if (!c.spike_x.empty()) {  // at the raw values, in the run's colour; one key for all
      bool no_entry = true;
      add_marks(c.spike_x, c.spike_y, QCPScatterStyle::ssStar, series_colour(group), QString(),
                no_entry);
    }
    return drawn;
  }

  // A group's band, under its mean: the members' spread, smoothed as the mean is.
  void draw_band(const Curve& c, const PreparedCurve* ready, int group, CurveGraphs& drawn) {
    auto smooth = [&](const std::vector<double>& v) {
      return f_.smoothing > 0 ? debiased_ema(finite_or_nan(v), f_.smoothing) : finite_or_nan(v);
    };
    drawn.band_lo = ready ? add_decimated(plot_, ready->lo_x, ready->lo_y)
                          : add_graph(plot_, c.step, smooth(c.band_lo), style_.decimation_buckets);
    drawn.band_hi = ready ? add_decimated(plot_, ready->hi_x, ready->hi_y)
                          : add_graph(plot_, c.step, smooth(c.band_hi), style_.decimation_buckets);
    QColor fill = series_colour(group);
    fill.setAlpha(50);
    for (QCPGraph* edge : {drawn.band_lo, drawn.band_hi}) {
      edge->setPen(Qt::NoPen);
      edge->removeFromLegend();
    }
    drawn.band_hi->setBrush(fill);
    drawn.band_hi->setChannelFillGraph(drawn.band_lo);
  }

  // The mean's last finite point: beyond it fewer than half the members go on.
  void mark_early_stop(const std::vector<double>& xs, const std::vector<double>& ys, int group) {
    size_t last = std::min(xs.size(), ys.size());
    while (last > 0 && !std::isfinite(ys[last - 1])) --last;
    if (last > 0)
      add_marks({xs[last - 1]}, {ys[last - 1]}, QCPScatterStyle::ssCircle, series_colour(group),
                QStringLiteral("mean ends: < half the runs left"), stop_in_legend_);
  }

  // A fork's curve up to its fork point is its parent's: a diamond in its colour where the
  // two part, on the line as drawn (between the points either side of it, straight on the
  // axis's scale; at the nearest point where one side has none).
  // A mark in the curve's colour on the line as drawn at `fork_x` (between two points: where
  // the line between them is): a fork's diamond, a milestone's triangle.
  void mark_on_line(double fork_x, const std::vector<double>& xs, const std::vector<double>& ys,
                    int group, QCPScatterStyle::ScatterShape shape) {
    std::optional<size_t> before, after;
    for (size_t i = 0; i < std::min(xs.size(), ys.size()); ++i) {
      if (!std::isfinite(ys[i])) continue;
      if (xs[i] <= fork_x) before = i;
      if (xs[i] >= fork_x && !after) after = i;
    }
    if (!before && !after) return;
    double x = xs[before ? *before : *after], y = ys[before ? *before : *after];
    if (before && after && xs[*after] > xs[*before]) {
      x = fork_x;
      const bool log = f_.y.scale == Scale::Log && ys[*before] > 0 && ys[*after] > 0;
      const double a = log ? std::log(ys[*before]) : ys[*before];
      const double b = log ? std::log(ys[*after]) : ys[*after];
      const double t = (fork_x - xs[*before]) / (xs[*after] - xs[*before]);
      y = log ? std::exp(a + t * (b - a)) : a + t * (b - a);
    }
    bool no_entry = true;  // add_fork_key's and add_milestone_key's, in black, say what they are
    add_marks({x}, {y}, shape, series_colour(group), QString(), no_entry);
  }

  // The last finite value at or before the divergence, in black; null when there is none.
  QCPGraph* mark_divergence(const Curve& c, const PreparedCurve* ready,
                            const std::vector<double>& shown) {
    double y = kNaN;
    if (ready)
      y = ready->diverged_y;
    else
      for (size_t i = 0; i < c.step.size() && c.step[i] <= *c.diverged_step; ++i)
        if (std::isfinite(shown[i])) y = shown[i];
    if (std::isnan(y)) return nullptr;
    return add_marks({*c.diverged_step}, {y}, QCPScatterStyle::ssCross, Qt::black,
                     QStringLiteral("diverged"), diverged_in_legend_);
  }

  // A scatter graph of markers; each kind (`in_legend`) gets one legend entry.
  QCPGraph* add_marks(const std::vector<double>& x, const std::vector<double>& y,
                      QCPScatterStyle::ScatterShape shape, const QColor& colour,
                      const QString& name, bool& in_legend) {
    auto* mark = plot_.addGraph(plot_.xAxis, plot_.yAxis);
    mark->setData(QVector<double>(x.begin(), x.end()), QVector<double>(y.begin(), y.end()));
    mark->setLineStyle(QCPGraph::lsNone);
    mark->setScatterStyle(QCPScatterStyle(shape, QPen(colour, 1.2 * px_per_pt()), Qt::NoBrush,
                                          2 * style_.marker_pt * px_per_pt()));
    mark->setName(name);
    if (in_legend) mark->removeFromLegend();
    in_legend = true;
    return mark;
  }

  void fit_axes() {
    fit_curve_axes(plot_, f_.x, f_.y);
    detail::apply_limits(plot_.xAxis, f_.x);
    detail::apply_limits(plot_.yAxis, f_.y);
  }

  // The budget a comparison reads the runs at: a dashed grey line across the plot, inside the
  // x range even where every curve ends before it (the runs short of it are what it shows).
  void draw_budget_line() {
    if (!f_.budget) return;
    const double x = f_.budget->x;
    fit_budget_line(plot_, f_.budget, f_.x);
    QPen pen(QColor(90, 90, 90), 1.2 * px_per_pt(), Qt::DashLine);
    auto* line = new QCPItemStraightLine(&plot_);
    line->point1->setCoords(x, 0);
    line->point2->setCoords(x, 1);
    line->setPen(pen);
    line->setClipToAxisRect(true);
    auto* key = plot_.addGraph(plot_.xAxis, plot_.yAxis);  // its legend entry only
    key->setPen(pen);
    key->setName(detail::qstr(f_.budget->label));
  }

  // The y label names the metrics when the figure gives none, with their unit when they share
  // one (db/metric_presentation.h); a time axis says its format, chosen from the fitted range.
  void label_axes() {
    std::string y_label = f_.y.label;
    if (y_label.empty()) {
      std::set<std::string> units;
      for (const auto& [metric, index] : metric_of_) {
        y_label += (y_label.empty() ? "" : ", ") + metric;
        units.insert(db::metric::presentation_of(metric).unit);
      }
      if (units.size() == 1 && !units.begin()->empty()) y_label += " (" + *units.begin() + ")";
    }
    std::string x_label = f_.x.label;
    if (time_axis()) {
      const bool hours = plot_.xAxis->range().upper >= 3600;
      time_ticker_->setTimeFormat(hours ? QStringLiteral("%h:%m") : QStringLiteral("%m:%s"));
      x_label += hours ? " (h:mm)" : " (m:ss)";
    }
    plot_.xAxis->setLabel(detail::qstr(x_label));
    plot_.yAxis->setLabel(detail::qstr(y_label));
  }

  // Says once, in black, what a kind of mark is, where any curve has one: an empty graph with
  // its look in the legend.
  template <typename HasMark>
  void add_mark_key(HasMark has_mark, QCPScatterStyle::ScatterShape shape, const QString& name) {
    if (std::none_of(f_.curves.begin(), f_.curves.end(), has_mark)) return;
    bool first = false;
    add_marks({}, {}, shape, Qt::black, name, first);
  }

  void add_fork_key() {
    add_mark_key([](const Curve& c) { return c.fork_step.has_value(); }, QCPScatterStyle::ssDiamond,
                 QStringLiteral("fork: where it leaves its parent"));
  }

  void add_milestone_key() {
    add_mark_key([](const Curve& c) { return !c.milestone_x.empty(); }, QCPScatterStyle::ssTriangle,
                 QStringLiteral("checkpoint measured / early stop"));
  }

  void add_read_key() {
    const bool groups = std::any_of(f_.curves.begin(), f_.curves.end(), [](const Curve& c) {
      return c.read_x.has_value() && !c.members.empty();
    });
    add_mark_key([](const Curve& c) { return c.read_x.has_value(); }, QCPScatterStyle::ssSquare,
                 groups ? QStringLiteral("value read at the budget (a group: its runs' mean)")
                        : QStringLiteral("value read at the budget"));
  }

  void add_spike_key() {
    add_mark_key([](const Curve& c) { return !c.spike_x.empty(); }, QCPScatterStyle::ssStar,
                 detail::qstr(f_.spikes_are.empty() ? "spike" : f_.spikes_are));
  }

  // Says what the shading is, once: an empty graph with the band's look in the legend.
  void add_band_key() {
    if (f_.band.empty() || f_.curves.empty()) return;
    auto* key = plot_.addGraph(plot_.xAxis, plot_.yAxis);
    key->setPen(Qt::NoPen);
    key->setBrush(QColor(0, 0, 0, 50));
    key->setName(f_.band == "std"    ? QStringLiteral("shaded: mean \u00b1 1 std")
                 : f_.band == "ci95" ? QStringLiteral("shaded: 95 % interval")
                                     : QStringLiteral("shaded: min to max"));
  }

  QCustomPlot& plot_;
  const CurveFigure& f_;
  const Style& style_;
  const std::vector<PreparedCurve>* prepared_;
  QSharedPointer<QCPAxisTickerTime> time_ticker_;
  std::map<std::string, int> group_of_, metric_of_;
  int next_group_ = 0;
  bool diverged_in_legend_ = false, stop_in_legend_ = false;
};

}  // namespace

void fit_budget_line(QCustomPlot& plot, const std::optional<BudgetLine>& budget, const Axis& x) {
  if (!budget || x.min || x.max) return;
  const QCPRange r = plot.xAxis->range();
  const bool log = plot.xAxis->scaleType() == QCPAxis::stLogarithmic;
  const double at = budget->x;
  if (at > r.upper) plot.xAxis->setRangeUpper(log ? at * 1.1 : at + 0.03 * (at - r.lower));
  if (at < r.lower) plot.xAxis->setRangeLower(log ? at / 1.1 : at - 0.03 * (r.upper - at));
}

void setup_curve_figure(QCustomPlot& plot, const CurveFigure& f, const Style& style) {
  CurveDrawer(plot, f, style, nullptr).draw();
}

std::vector<CurveGraphs> setup_curve_figure(QCustomPlot& plot, const CurveFigure& f,
                                            const Style& style,
                                            const std::vector<PreparedCurve>& prepared) {
  return CurveDrawer(plot, f, style, &prepared).draw();
}

}  // namespace fathom::plot
