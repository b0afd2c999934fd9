#include "gui/curve_plot.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>

#include <qcustomplot.h>
#include <QAction>
#include <QVBoxLayout>

#include "base/util/same_value.h"
#include "gui/export_menu.h"
#include "gui/export_targets.h"
#include "plot/plot_widget.h"
#include "plot/render.h"

namespace fathom::gui {
namespace {
const QString kGrowingLayer = QStringLiteral("growing");
}  // namespace

CurvePlot::CurvePlot(QWidget* parent) : QWidget(parent) {
  plot_ = new plot::PlotWidget;
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  plot_->setMinimumSize(260, 180);
  // On screen, frame time over print quality: a decimated min/max envelope drawn antialiased
  // along a dash pattern is what makes a replot slow (bench_dashboard). Exports re-draw the
  // figure on a fresh plot in full quality (export_targets.h).
  plot_->setPlottingHint(QCP::phFastPolylines, true);
  plot_->setNotAntialiasedElements(QCP::aePlottables | QCP::aeFills);
  // The curves that grew since the set-up are drawn on a layer of their own, above the
  // others, in a buffer of its own: a live sweep's poll that moves neither axis repaints
  // that layer only, not thousands of ended runs' curves (bench_dashboard "two runs' poll").
  plot_->addLayer(kGrowingLayer, plot_->layer("main"), QCustomPlot::limAbove);
  plot_->layer(kGrowingLayer)->setMode(QCPLayer::lmBuffered);
  // The hover read-out is a tooltip over the chart and a crosshair drawn over it: neither
  // takes a place in the layout, so no read-out, however long, moves or resizes a chart.
  crosshair_ = makeCrosshair(plot_);
  plot_->installEventFilter(this);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addWidget(plot_, 1);

  // The renderer rebuilds the axes on every update, so zoom is noticed from the mouse, not
  // from the axes' range signals.
  connect(plot_, &QCustomPlot::mouseWheel, this, [this] { user_zoomed_ = true; });
  connect(plot_, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
    if (e->buttons() & Qt::LeftButton) user_zoomed_ = true;
    showReadout(e);
  });
  connect(plot_, &QCustomPlot::mouseDoubleClick, this, [this] { resetZoom(); });
  // Before each paint, when the axes' size is known (a resize changes what a pixel is worth).
  connect(plot_, &QCustomPlot::beforeReplot, this, [this] {
    if (!user_zoomed_ && !placed_.empty()) makeRoomForMarks();
  });
  // After it, when the set-up's new axis rect has its width: as many x ticks as fit (once more
  // after each set-up, whose ticker starts at QCustomPlot's default).
  connect(plot_, &QCustomPlot::afterReplot, this, [this] {
    if (plot::fit_x_tick_count(*plot_)) plot_->replot(QCustomPlot::rpQueuedReplot);
  });

  add_export_menu(plot_);
  enlarge_ = new QAction(QStringLiteral("E&nlarge"), plot_);
  connect(enlarge_, &QAction::triggered, this, &CurvePlot::enlargeToggled);
  plot_->addAction(enlarge_);
  set_figure_source(plot_, [this]() -> std::optional<plot::Figure> {
    plot::CurveFigure shown = full_figure_ ? full_figure_() : figure_;
    if (shown.curves.empty()) return std::nullopt;
    // Spikes and fork points come with the figure; a run page's milestones only as marks.
    for (const ChartMark& m : marks_)
      if (m.kind == ChartMark::Kind::Milestone)
        for (plot::Curve& c : shown.curves)
          if (QString::fromStdString(c.label) == m.curve) c.milestone_x.push_back(m.x);
    if (user_zoomed_) {  // export what the user zoomed to
      shown.x.min = plot_->xAxis->range().lower;
      shown.x.max = plot_->xAxis->range().upper;
      shown.y.min = plot_->yAxis->range().lower;
      shown.y.max = plot_->yAxis->range().upper;
    }
    return shown;
  });
}

int CurvePlot::graphCount() const { return plot_->graphCount(); }

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Above this many curves the faint raw curves behind the smoothed ones are left out: they
// double what is painted and, with many runs, are a grey haze rather than information.
constexpr size_t kMaxRawCurves = 10;

// A curve's points as setFigure gets them (in the figure) and as setCurves does (the cache's).
struct FigurePoints {
  const plot::Curve* curve;
  size_t size() const { return std::min(curve->step.size(), curve->value.size()); }
  double x(size_t i) const { return curve->step[i]; }
  double y(size_t i) const { return curve->value[i]; }
  bool band() const { return !curve->band_lo.empty(); }
  double lo(size_t i) const { return curve->band_lo[i]; }
  double hi(size_t i) const { return curve->band_hi[i]; }
};
struct CachePoints {
  const std::vector<db::MetricPoint>* points;
  plot::RunX place;
  size_t size() const { return points->size(); }
  double x(size_t i) const { return place.at((*points)[i]); }
  double y(size_t i) const { return (*points)[i].value; }
  bool band() const { return false; }
  double lo(size_t) const { return kNaN; }
  double hi(size_t) const { return kNaN; }
};

double finite_or_nan(double v) { return std::isfinite(v) ? v : kNaN; }

void set_points(QCPGraph* graph, const plot::XY& xy) {
  graph->setData(QVector<double>(xy.x.begin(), xy.x.end()),
                 QVector<double>(xy.y.begin(), xy.y.end()), true);
}

void apply_limits(QCPAxis* axis, const plot::Axis& spec) {
  QCPRange range = axis->range();
  if (spec.min) range.lower = *spec.min;
  if (spec.max) range.upper = *spec.max;
  axis->setRange(range);
}

}  // namespace

namespace {

// True when `now` starts with every point of `before` (x, y and band alike): a curve that only
// grew, whose drawn state can be continued.
bool extends(const plot::Curve& before, const plot::Curve& now) {
  auto prefix = [](const std::vector<double>& a, const std::vector<double>& b) {
    if (a.size() > b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!same_value(a[i], b[i])) return false;
    return true;
  };
  return before.band_lo.empty() == now.band_lo.empty() && prefix(before.step, now.step) &&
         prefix(before.value, now.value) && prefix(before.band_lo, now.band_lo) &&
         prefix(before.band_hi, now.band_hi);
}

}  // namespace

void CurvePlot::setFigure(plot::CurveFigure figure, bool rewritten) {
  // A rewritten figure's curves are compared with what is drawn: where one only grew (the
  // usual poll), only its new points are smoothed and decimated.
  std::vector<bool> fresh(figure.curves.size(), rewritten);
  for (size_t i = 0; rewritten && i < fresh.size() && i < figure_.curves.size(); ++i)
    fresh[i] = !extends(figure_.curves[i], figure.curves[i]);
  figure_ = std::move(figure);
  x_kind_ = figure_.x_kind;
  full_figure_ = nullptr;
  std::vector<FigurePoints> series;
  for (const auto& c : figure_.curves) series.push_back({&c});
  update(figure_, series, fresh);
}

void CurvePlot::setCurves(plot::CurveFigure skeleton,
                          std::vector<const std::vector<db::MetricPoint>*> series,
                          std::vector<plot::RunX> x,
                          std::function<plot::CurveFigure()> full_figure) {
  figure_ = plot::CurveFigure{};
  x_kind_ = skeleton.x_kind;
  full_figure_ = std::move(full_figure);
  std::vector<CachePoints> points;
  for (size_t i = 0; i < series.size(); ++i) points.push_back({series[i], x[i]});
  update(skeleton, points, std::vector<bool>(points.size(), false));
}

std::string CurvePlot::signature(const plot::CurveFigure& f) const {
  std::ostringstream out;
  out.precision(17);
  auto axis = [&](const plot::Axis& a) {
    out << a.label << '\x1f' << int(a.scale) << '\x1f' << (a.min ? *a.min : kNaN) << '\x1f'
        << (a.max ? *a.max : kNaN) << '\x1e';
  };
  out << f.title << '\x1e' << f.smoothing << '\x1e' << f.x_kind << '\x1e' << f.band << '\x1e';
  axis(f.x);
  axis(f.y);
  if (f.budget) out << f.budget->x << '\x1f' << f.budget->label << '\x1e';
  for (const auto& c : f.curves) {
    out << c.label << '\x1f' << c.metric << '\x1f' << c.colour_key << '\x1f'
        << (c.diverged_step ? *c.diverged_step : kNaN) << '\x1f' << c.band_lo.empty() << '\x1f'
        << c.stopped_early;
    for (const auto& e : c.ends) out << '\x1f' << e.x << '\x1f' << e.y;
    out << '\x1e';
  }
  return out.str();
}

template <class Points>
void CurvePlot::update(const plot::CurveFigure& f, const std::vector<Points>& series,
                       const std::vector<bool>& rewritten) {
  bool setup = rebucket();
  x_spec_ = f.x, y_spec_ = f.y;
  budget_ = f.budget;
  const std::string sig = signature(f);
  if (sig != signature_ || live_.size() != f.curves.size() || graphs_.size() != f.curves.size())
    setup = true;
  if (setup) live_.clear();
  const double x_end = feed(f, series, rewritten, setup);
  // The legend's corner was chosen for the data then; a curve that doubled may now run under it.
  if (!setup && x_end > 2 * x_end_at_setup_ && x_end > x_end_at_setup_ + 16) setup = true;

  QCPRange x, y;
  const bool axes = plot_->xAxis && plot_->yAxis;
  const bool keep = user_zoomed_ && axes;
  if (axes) {
    x = plot_->xAxis->range();
    y = plot_->yAxis->range();
  }
  const std::vector<ChartMark> marks_before = placed_;
  std::vector<bool> grew(live_.size(), false);
  if (setup)
    rebuild(f, sig, x_end);
  else if (!extendGraphs(f, keep, &grew))
    return;  // nothing new: the picture stands
  const bool moved = !setup && layerGrowing(grew);
  screenPens();
  drawMarks();  // a fork mark follows its curve's line
  if (keep) {
    plot_->xAxis->setRange(x);
    plot_->yAxis->setRange(y);
  }
  // Only grown curves on the growing layer, the same axes, the same marks: the rest of the
  // picture stands, and only that layer is drawn again.
  if (!setup && !moved && axes && plot_->xAxis->range() == x && plot_->yAxis->range() == y &&
      placed_ == marks_before)
    plot_->layer(kGrowingLayer)->replot();
  else
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

bool CurvePlot::rebucket() {
  // About one bucket per 2-4 pixels (at most 5 points a bucket, usually 2-4): the min/max
  // envelope a pixel column shows, with a bounded number of points per curve whatever the
  // curve's length. A width change within 1.5x keeps the buckets (no re-decimation).
  const int buckets = std::max(50, plot_->width() / 4);
  const bool again = buckets_ == 0 || 2 * buckets > 3 * buckets_ || 3 * buckets < 2 * buckets_;
  if (again) buckets_ = buckets;
  return again;
}

template <class Points>
double CurvePlot::feed(const plot::CurveFigure& f, const std::vector<Points>& series,
                       const std::vector<bool>& rewritten, bool& setup) {
  const bool smooth = f.smoothing > 0, with_raw = smooth && f.curves.size() <= kMaxRawCurves;
  double x_end = 0;
  for (size_t i = 0; i < f.curves.size(); ++i) {
    const Points& p = series[i];
    const size_t n = p.size();
    bool fresh = i >= live_.size() || rewritten[i];
    if (!fresh) {  // grown, or rewritten (a resume deletes points; a new figure)?
      const size_t seen = live_[i].shown.count();
      fresh = n < seen || (seen > 0 && (p.x(seen - 1) != live_[i].last_x ||
                                        !same_value(p.y(seen - 1), live_[i].last_y)));
    }
    if (fresh) {
      const double x0 = n ? p.x(0) : 0, range = n > 1 ? p.x(n - 1) - x0 : 0;
      Live l(buckets_, x0, range > 0 ? range / buckets_ : 1.0, f.smoothing);
      l.diverged_y = kNaN;
      if (i < live_.size())
        live_[i] = std::move(l);
      else
        live_.push_back(std::move(l));
    }
    Live& l = live_[i];
    const std::optional<double> diverged = f.curves[i].diverged_step;
    for (size_t j = l.shown.count(); j < n; ++j) {
      const double x = p.x(j), raw = p.y(j), y = std::isfinite(raw) ? raw : kNaN;
      const double shown = smooth ? l.ema.next(y) : y;
      if (with_raw) l.raw.add(x, y);
      l.shown.add(x, shown);
      if (p.band()) {
        const double lo = finite_or_nan(p.lo(j)), hi = finite_or_nan(p.hi(j));
        l.lo.add(x, smooth ? l.ema_lo.next(lo) : lo);
        l.hi.add(x, smooth ? l.ema_hi.next(hi) : hi);
      }
      if (diverged && x <= *diverged && std::isfinite(shown)) l.diverged_y = shown;
      l.last_x = x, l.last_y = raw;
      l.changed = true;
    }
    if (n) x_end = std::max(x_end, p.x(n - 1));
    if (!setup && diverged && std::isfinite(l.diverged_y) != (graphs_[i].mark != nullptr))
      setup = true;
  }
  return x_end;
}

void CurvePlot::rebuild(const plot::CurveFigure& f, const std::string& signature, double x_end) {
  const bool with_raw = f.smoothing > 0 && f.curves.size() <= kMaxRawCurves;
  std::vector<plot::PreparedCurve> prepared(live_.size());
  for (size_t i = 0; i < live_.size(); ++i) {
    if (with_raw) {
      plot::XY raw = live_[i].raw.points();
      prepared[i].raw_x = std::move(raw.x), prepared[i].raw_y = std::move(raw.y);
    }
    plot::XY shown = live_[i].shown.points();
    prepared[i].x = std::move(shown.x), prepared[i].y = std::move(shown.y);
    if (live_[i].lo.count()) {
      plot::XY lo = bandEdge(live_[i], true), hi = bandEdge(live_[i], false);
      prepared[i].lo_x = std::move(lo.x), prepared[i].lo_y = std::move(lo.y);
      prepared[i].hi_x = std::move(hi.x), prepared[i].hi_y = std::move(hi.y);
    }
    prepared[i].diverged_y = live_[i].diverged_y;
    live_[i].changed = false;
  }
  plot::Style style;
  style.font_pt = 9;  // a screen, not a two-column paper
  style.title_pt = 10;
  style.font_families.prepend(font().family());
  style.legend = legend_;  // a hidden legend must not take a row of the plot either
  style.markers = markers_;
  base_look_.clear();     // the graphs are new
  hideReadout();          // it named a point of the old picture
  mark_graphs_.forget();  // the set-up removes every graph
  graphs_ = plot::setup_curve_figure(*plot_, f, style, prepared);
  signature_ = signature;
  x_end_at_setup_ = x_end;
  if (!legend_ && plot_->legend) plot_->legend->setVisible(false);
}

bool CurvePlot::layerGrowing(const std::vector<bool>& grew) {
  QCPLayer* growing = plot_->layer(kGrowingLayer);
  QCPLayer* settled = plot_->layer("main");
  size_t grown = 0, quiet = 0;
  for (size_t i = 0; i < graphs_.size(); ++i) {
    grown += grew[i];
    quiet += !grew[i] && graphs_[i].line->layer() == growing;
  }
  // Curves that stopped growing go back once they are most of the layer; a few that skip a
  // poll stay, so that no curve goes back and forth.
  const bool settle = quiet > std::max<size_t>(16, 2 * grown);
  bool moved = false;
  for (size_t i = 0; i < graphs_.size(); ++i) {
    QCPLayer* layer = grew[i] ? growing : settle ? settled : nullptr;
    const plot::CurveGraphs& g = graphs_[i];
    for (QCPGraph* graph : {g.raw, g.line, g.band_lo, g.band_hi, g.mark})
      if (layer && graph && graph->layer() != layer) moved = graph->setLayer(layer) || moved;
  }
  return moved;
}

bool CurvePlot::extendGraphs(const plot::CurveFigure& f, bool keep_zoom, std::vector<bool>* grew) {
  bool changed = false;
  for (size_t i = 0; i < live_.size(); ++i) {
    Live& l = live_[i];
    if (!l.changed) continue;
    changed = true;
    (*grew)[i] = true;
    l.changed = false;
    const plot::CurveGraphs& g = graphs_[i];
    if (g.raw) set_points(g.raw, l.raw.points());
    set_points(g.line, l.shown.points());
    if (g.band_lo) set_points(g.band_lo, bandEdge(l, true));
    if (g.band_hi) set_points(g.band_hi, bandEdge(l, false));
    g.line->setScatterSkip(std::max(0, g.line->dataCount() / 6 - 1));
    if (g.mark) g.mark->setData({*f.curves[i].diverged_step}, {l.diverged_y});
  }
  if (changed && !keep_zoom) {
    fitToCurves();
    apply_limits(plot_->xAxis, f.x);
    apply_limits(plot_->yAxis, f.y);
  }
  return changed;
}

plot::XY CurvePlot::bandEdge(const Live& l, bool lower) {
  // Filling between two min/max envelopes costs by the vertex (most of a grouped frame): the
  // band keeps only its outer edge, one point a bucket.
  const plot::MinMaxDecimator& edge = lower ? l.lo : l.hi;
  plot::XY xy = edge.points();
  return xy.x.empty() ? xy : plot::bucket_extremes(xy, xy.x.front(), edge.width(), lower);
}

void CurvePlot::screenPens() {
  // A dash pattern along a decimated min/max envelope is unreadable and slow to paint (QCP
  // draws dashed lines segment by segment): long curves are solid on screen, told apart by
  // colour and markers. Exports keep the dashes. Lines thinner than 2 px are drawn as
  // cosmetic 1 px pens: without antialiasing they look the same, and the raster engine draws
  // them directly, where a 1.3 px pen goes through the stroker (most of a frame's time).
  for (const plot::CurveGraphs& g : graphs_)
    for (QCPGraph* graph : {g.raw, g.line}) {
      if (!graph) continue;
      auto look = base_look_.find(graph);
      if (look == base_look_.end())
        look = base_look_.emplace(graph, std::make_pair(graph->pen(), graph->scatterStyle())).first;
      QPen& pen = look->second.first;
      const bool dash =
          graph == g.line && graph->dataCount() > 1000 && pen.style() != Qt::SolidLine;
      const bool thin = pen.widthF() != 0 && pen.widthF() < 2;
      if (dash) pen.setStyle(Qt::SolidLine);
      if (thin) pen.setWidth(0);
    }
  applyHighlight();
}

void CurvePlot::setEnlarged(bool enlarged) {
  enlarged_ = enlarged;
  enlarge_->setText(enlarged ? QStringLiteral("&Back to all charts") : QStringLiteral("E&nlarge"));
}

void CurvePlot::setHighlight(const QString& label) {
  if (label == highlight_) return;
  highlight_ = label;
  applyHighlight();
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void CurvePlot::applyHighlight() {
  auto faint = [](QColor c) {
    c.setAlphaF(c.alphaF() * 0.2);
    return c;
  };
  for (const plot::CurveGraphs& g : graphs_) {
    const bool others = !highlight_.isEmpty() && g.line && g.line->name() != highlight_;
    const bool mine = !highlight_.isEmpty() && !others;
    for (QCPGraph* graph : {g.raw, g.line}) {
      auto look = graph ? base_look_.find(graph) : base_look_.end();
      if (look == base_look_.end()) continue;
      QPen pen = look->second.first;
      QCPScatterStyle scatter = look->second.second;
      if (others) {
        pen.setColor(faint(pen.color()));
        QPen marker_pen = scatter.pen();
        marker_pen.setColor(faint(marker_pen.color()));
        scatter.setPen(marker_pen);
        if (scatter.brush().style() != Qt::NoBrush)
          scatter.setBrush(faint(scatter.brush().color()));
      } else if (mine && graph == g.line) {
        pen.setWidthF(std::max(3.0, 2 * pen.widthF()));
      }
      graph->setPen(pen);
      graph->setScatterStyle(scatter);
    }
  }
}

void CurvePlot::setLegendVisible(bool visible) {
  if (visible != legend_) signature_.clear();  // placed (or not) at the next set-up
  legend_ = visible;
  if (plot_->legend) plot_->legend->setVisible(visible && plot_->legend->itemCount() > 0);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void CurvePlot::setMarkers(bool markers) {
  if (markers != markers_) signature_.clear();  // drawn so at the next set-up
  markers_ = markers;
}

void CurvePlot::resetZoom() {
  user_zoomed_ = false;
  hideReadout();
  fitToCurves();
  plot_->replot();
}

void CurvePlot::fitToCurves() {
  // A spike pointer sits above its point; fitting to it would leave a margin for nothing.
  mark_graphs_.setVisible(false);
  plot::fit_curve_axes(*plot_, x_spec_, y_spec_);
  plot::fit_budget_line(*plot_, budget_, x_spec_);
  mark_graphs_.setVisible(true);
}

void CurvePlot::setMarks(std::vector<ChartMark> marks) {
  if (marks == marks_) return;
  marks_ = std::move(marks);
  drawMarks();
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

namespace {

// The y of a drawn line at x: between the drawn points around it (NaN outside the line).
double line_y_at(const QCPGraph& line, double x) {
  const auto data = line.data();
  auto after = data->findBegin(x, false);
  if (after == data->constEnd()) return kNaN;
  if (after->key == x || after == data->constBegin()) return after->key == x ? after->value : kNaN;
  auto before = after - 1;
  const double t = (x - before->key) / (after->key - before->key);
  return before->value + t * (after->value - before->value);
}

}  // namespace

void CurvePlot::drawMarks() {
  placed_.clear();
  if (marks_.empty() && mark_graphs_.empty()) return;  // the usual chart: nothing to do
  std::map<QString, QCPGraph*> lines;
  for (const plot::CurveGraphs& g : graphs_)
    if (g.line) lines.emplace(g.line->name(), g.line);
  std::vector<QColor> colours;
  for (const ChartMark& m : marks_) {
    auto line = lines.find(m.curve);
    if (line == lines.end()) continue;  // hidden, or not drawn yet
    ChartMark placed = m;
    if (std::isnan(placed.y)) placed.y = line_y_at(*line->second, m.x);
    if (!std::isfinite(placed.y)) continue;
    auto look = base_look_.find(line->second);
    colours.push_back(look != base_look_.end() ? look->second.first.color()
                                               : line->second->pen().color());
    placed_.push_back(std::move(placed));
  }
  if (plot_->xAxis) mark_graphs_.draw(*plot_, placed_, colours);
}

void CurvePlot::makeRoomForMarks() {
  // A spike's pointer stands above its point, which is the curve's highest on a chart fitted to
  // it; a tick (a fork, a milestone such as checkpoint_best -- the valid curve's lowest point)
  // reaches above and below its point. Widen the range until every mark is inside (the user's
  // own zoom is left alone).
  constexpr double kPointerRoom = 16, kTickRoom = 12;  // pixels a mark takes beyond its point
  QCPAxis* y = plot_->yAxis;
  const double height = y->axisRect()->height();
  if (height < 4 * kPointerRoom) return;
  const bool log = y->scaleType() == QCPAxis::stLogarithmic;
  auto to_axis = [log](double v) { return log ? std::log10(v) : v; };
  double lo = to_axis(y->range().lower), hi = to_axis(y->range().upper);
  for (int pass = 0; pass < 2; ++pass) {  // each bound moved against the other's latest
    for (const ChartMark& m : placed_) {
      if (log && m.y <= 0) continue;
      const double v = to_axis(m.y);
      const bool spike = m.kind == ChartMark::Kind::Spike;
      // The top that leaves `room` pixels above v: (hi - v) / (hi - lo) = room / height; the
      // bottom likewise below it.
      const double up = spike ? kPointerRoom : kTickRoom;
      hi = std::max(hi, (v * height - up * lo) / (height - up));
      if (!spike) lo = std::min(lo, (v * height - kTickRoom * hi) / (height - kTickRoom));
    }
  }
  if (std::isfinite(hi) && hi > to_axis(y->range().upper))
    y->setRangeUpper(log ? std::pow(10.0, hi) : hi);
  if (std::isfinite(lo) && lo < to_axis(y->range().lower))
    y->setRangeLower(log ? std::pow(10.0, lo) : lo);
}

}  // namespace fathom::gui

#include "moc_curve_plot.cpp"  // moc output for curve_plot.h: compiled in this unit
