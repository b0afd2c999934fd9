#include "gui/chart_marks.h"

#include <cmath>

#include <qcustomplot.h>
#include <QPainterPath>

#include "base/util/same_value.h"

namespace fathom::gui {

bool ChartMark::operator==(const ChartMark& o) const {
  return kind == o.kind && curve == o.curve && same_value(x, o.x) && same_value(y, o.y) &&
         text == o.text;
}

namespace {

// Pixels above a spike's point where its pointer is centred: the pointer's tip stops short of
// the curve, so the spike itself stays visible.
constexpr double kPointerLift = 8;

// A small triangle pointing down at the point from above it (scatter paths are in pixels at
// size 6).
QPainterPath spike_pointer() {
  QPainterPath path;
  path.moveTo(0, -3);
  path.lineTo(4, -kPointerLift - 4);
  path.lineTo(-4, -kPointerLift - 4);
  path.closeSubpath();
  return path;
}

// A diamond on the curve with a short vertical tick through it: where a fork branched off.
QPainterPath fork_tick() {
  QPainterPath path;
  path.moveTo(0, -10);
  path.lineTo(0, -4);
  path.moveTo(0, 4);
  path.lineTo(0, 10);
  path.moveTo(0, -4);
  path.lineTo(4, 0);
  path.lineTo(0, 4);
  path.lineTo(-4, 0);
  path.closeSubpath();
  return path;
}

void set_graph_points(QCPGraph* graph, const std::vector<const ChartMark*>& marks) {
  QVector<double> x, y;
  for (const ChartMark* m : marks) x.push_back(m->x), y.push_back(m->y);
  graph->setData(x, y, true);
}

}  // namespace

void ChartMarkGraphs::draw(QCustomPlot& plot, const std::vector<ChartMark>& marks,
                           const std::vector<QColor>& colours) {
  // One graph for every spike (one red), one a fork mark (its curve's colour); none until a
  // chart has a mark. Graphs are reused and emptied rather than removed: removing a plottable
  // searches the legend.
  std::vector<std::vector<const ChartMark*>> groups;
  std::vector<QColor> group_colours;
  std::vector<ChartMark::Kind> kinds;
  for (size_t i = 0; i < marks.size(); ++i) {
    const bool spike = marks[i].kind == ChartMark::Kind::Spike;
    if (spike && !kinds.empty() && kinds.front() == ChartMark::Kind::Spike) {
      groups.front().push_back(&marks[i]);
      continue;
    }
    const QColor colour = spike                ? QColor(213, 0, 0)
                          : i < colours.size() ? colours[i]
                                               : QColor(Qt::black);
    const auto at = spike ? 0 : groups.size();  // the spikes' graph comes first
    groups.insert(groups.begin() + at, {&marks[i]});
    group_colours.insert(group_colours.begin() + at, colour);
    kinds.insert(kinds.begin() + at, marks[i].kind);
  }
  while (graphs_.size() < groups.size()) {
    QCPGraph* graph = plot.addGraph(plot.xAxis, plot.yAxis);
    graph->removeFromLegend();
    graph->setLineStyle(QCPGraph::lsNone);
    graph->setAdaptiveSampling(false);
    graphs_.push_back({graph, ChartMark::Kind::Spike});
  }
  for (size_t g = 0; g < graphs_.size(); ++g) {
    QCPGraph* graph = graphs_[g].graph;
    if (g >= groups.size()) {
      graph->data()->clear();
      continue;
    }
    const bool spike = kinds[g] == ChartMark::Kind::Spike;
    QColor fill = spike ? group_colours[g] : QColor(Qt::white);
    if (spike) fill.setAlphaF(0.55);
    graph->setScatterStyle(QCPScatterStyle(spike ? spike_pointer() : fork_tick(),
                                           QPen(group_colours[g], spike ? 1.2 : 1.6), fill, 6));
    graphs_[g].kind = kinds[g];
    set_graph_points(graph, groups[g]);
  }
}

void ChartMarkGraphs::setVisible(bool visible) {
  for (const Drawn& d : graphs_) d.graph->setVisible(visible);
}

std::vector<std::pair<double, double>> ChartMarkGraphs::drawn(ChartMark::Kind kind) const {
  std::vector<std::pair<double, double>> out;
  for (const Drawn& d : graphs_)
    if (d.kind == kind)
      for (auto it = d.graph->data()->constBegin(); it != d.graph->data()->constEnd(); ++it)
        out.emplace_back(it->key, it->value);
  return out;
}

std::optional<size_t> mark_at(const QCustomPlot& plot, const std::vector<ChartMark>& placed,
                              const QPoint& pixel) {
  if (!plot.xAxis || !plot.yAxis) return std::nullopt;
  constexpr double kReach = 9;  // pixels from the mark's centre
  std::optional<size_t> nearest;
  double best = kReach;
  for (size_t i = 0; i < placed.size(); ++i) {
    const ChartMark& m = placed[i];
    if (!std::isfinite(m.y)) continue;
    const double lift = m.kind == ChartMark::Kind::Spike ? kPointerLift : 0;
    const double dx = plot.xAxis->coordToPixel(m.x) - pixel.x();
    const double dy = plot.yAxis->coordToPixel(m.y) - lift - pixel.y();
    const double d = std::hypot(dx, dy);
    if (d < best) best = d, nearest = i;
  }
  return nearest;
}

}  // namespace fathom::gui
