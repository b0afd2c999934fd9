// The dashboard's metric list and chart grid (a part of DashboardView, gui/dashboard_view.h):
// which metrics are charted, one CurvePlot per metric, their figures from the cached points
// (run by run or as seed groups), the caption and the shared legend.
#include <algorithm>
#include <cstdio>

#include <QCheckBox>
#include <QComboBox>
#include <QFont>
#include <QGridLayout>
#include <QLabel>
#include <QListWidget>
#include <QScrollArea>
#include <QSlider>
#include <QSplitter>
#include <QVBoxLayout>

#include "db/metric_names.h"
#include "db/metric_presentation.h"
#include "db/run_status.h"
#include "gui/curve_plot.h"
#include "gui/dashboard_view.h"

#include "experiments/value_at_budget.h"
#include "gui/run_marks.h"
#include "gui/run_state_text.h"
#include "gui/shared_legend.h"
#include "gui/store_session.h"
#include "plot/figure.h"
#include "plot/run_groups.h"
#include "plot/store_curves.h"
#include "plot/style.h"

namespace fathom::gui {

QSplitter* DashboardView::buildBody() {
  auto* charts = new QWidget;
  grid_ = new QGridLayout(charts);
  auto* scroll = new QScrollArea;
  scroll->setWidget(charts);
  scroll->setWidgetResizable(true);

  // Left: the metrics to chart above the one legend of all charts; both can be resized.
  auto titled = [](const QString& title, QWidget* content) {
    auto* box = new QWidget;
    auto* column = new QVBoxLayout(box);
    column->setContentsMargins(0, 0, 0, 0);
    column->addWidget(new QLabel(title));
    column->addWidget(content, 1);
    return box;
  };
  auto* side = new QSplitter(Qt::Vertical);
  side->addWidget(titled(QStringLiteral("Metrics"), metrics_));
  side->addWidget(titled(QStringLiteral("Curves"), legend_));
  side->setStretchFactor(0, 2);
  side->setStretchFactor(1, 3);
  auto* body = new QSplitter(Qt::Horizontal);
  body->addWidget(side);
  body->addWidget(scroll);
  body->setStretchFactor(0, 0);
  body->setStretchFactor(1, 1);
  body->setSizes({250, 850});
  return body;
}

bool DashboardView::isGroupHeader(const QListWidgetItem* item) {
  return item->data(kGroupHeaderRole).toBool();
}

bool DashboardView::refreshMetricList() {
  std::set<std::string> names;
  if (session_) {
    try {
      for (const auto& r : runs_)
        for (auto& n : session_->store.metric_names(r.id)) names.insert(n);
    } catch (const std::exception& e) {
      emit error(describe_store_error(e));
    }
  }
  std::vector<std::string> sorted(names.begin(), names.end());
  std::set<std::string> listed;
  int items = 0;
  for (int i = 0; i < metrics_->count(); ++i)
    if (!isGroupHeader(metrics_->item(i))) {
      listed.insert(metrics_->item(i)->text().toStdString());
      ++items;
    }
  if (listed == names && items == static_cast<int>(names.size())) return false;
  // Shown by default, in order, unit: the metric's presentation (db/metric_presentation.h).
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return db::metric::presentation_rank(a) < db::metric::presentation_rank(b);
  });
  updating_list_ = true;
  metrics_->clear();
  std::string group;
  for (const auto& n : sorted) {
    // A group's metrics (System: sys.*) under its name, which is no metric to tick.
    if (const std::string g = db::metric::metric_group(n); g != group && !g.empty()) {
      auto* header = new QListWidgetItem(QString::fromStdString(g), metrics_);
      header->setFlags(Qt::ItemIsEnabled);
      header->setData(kGroupHeaderRole, true);
      QFont bold = header->font();
      bold.setBold(true);
      header->setFont(bold);
    }
    group = db::metric::metric_group(n);
    auto* item = new QListWidgetItem(QString::fromStdString(n), metrics_);
    auto choice = chosen_.find(n);
    const db::metric::MetricPresentation look = db::metric::presentation_of(n);
    const bool on = choice == chosen_.end() ? look.shown : choice->second;
    if (!look.unit.empty()) item->setToolTip(QString::fromStdString("in " + look.unit));
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(on ? Qt::Checked : Qt::Unchecked);
  }
  updating_list_ = false;
  return true;
}

QStringList DashboardView::shownMetrics() const {
  QStringList out;
  for (int i = 0; i < metrics_->count(); ++i)
    if (!isGroupHeader(metrics_->item(i)) && metrics_->item(i)->checkState() == Qt::Checked)
      out << metrics_->item(i)->text();
  return out;
}

CurvePlot* DashboardView::chart(const QString& metric) const {
  auto it = charts_.find(metric.toStdString());
  return it == charts_.end() ? nullptr : it->second;
}

void DashboardView::trackCurves() {
  std::vector<std::string> metrics;
  for (const auto& m : shownMetrics()) metrics.push_back(m.toStdString());
  const std::string& x_metric = plot::x_series_metric(grouping().x);
  if (!x_metric.empty() && std::find(metrics.begin(), metrics.end(), x_metric) == metrics.end())
    metrics.push_back(x_metric);
  std::vector<int64_t> ids;
  for (const db::RunRecord* r : drawnRuns()) ids.push_back(r->id);
  groups_.clear();  // they read curves the cache may drop
  cache_.track(ids, metrics);
}

void DashboardView::rebuildCharts() {
  const QStringList shown = shownMetrics();
  std::vector<std::string> metrics;
  for (const auto& m : shown) metrics.push_back(m.toStdString());
  trackCurves();

  for (auto& [name, chart] : charts_) chart->deleteLater();
  charts_.clear();
  const int columns = shown.size() > 4 ? 3 : 2;
  for (int i = 0; i < shown.size(); ++i) {
    auto* chart = new CurvePlot;
    const std::string name = metrics[i];
    connect(chart, &CurvePlot::enlargeToggled, this,
            [this, name] { enlarge(enlarged_ == name ? std::string() : name); });
    chart->setLegendVisible(false);  // the shared legend names the curves
    chart->setHighlight(legend_->hoveredLabel());
    charts_[metrics[i]] = chart;
    grid_->addWidget(chart, i / columns, i % columns);
  }
  if (!charts_.count(enlarged_)) enlarged_.clear();
  enlarge(enlarged_);
  poll();
  redraw();
}

void DashboardView::enlarge(const std::string& metric) {
  enlarged_ = metric;
  for (auto& [name, chart] : charts_) {
    chart->setVisible(metric.empty() || name == metric);
    chart->setEnlarged(name == metric);
  }
}

void DashboardView::redraw() {
  smoothing_label_->setText(QString::number(smoothing(), 'f', 2));
  spikes_.setRule(spikeRule());  // a new rule finds every curve's spikes again
  refreshColourValues();         // once a redraw, not once a run and chart
  int left_out = 0;  // runs with points that cannot go on the x axis (most over the charts)
  size_t groups = 0;
  const bool grouped = !groupBy().isEmpty();
  std::vector<plot::Curve> group_curves;  // every chart's groups, for the legend (no points)
  // Markers only while the legend's entries can each have a look of their own, and the
  // charts as the legend (plot/style.h lines_marked). Ungrouped it lists the drawn runs;
  // grouped, its entries are counted as the charts are drawn, and a count across the limit
  // draws them again.
  if (!grouped) markers_ = plot::lines_marked(parents_.size() + runs_.size());
  for (auto& [metric, chart] : charts_) chart->setMarkers(markers_);
  for (auto& [metric, chart] : charts_) {
    if (grouped) {
      plot::CurveFigure shown = groupFigure(metric, &left_out, &group_curves);
      // The legend's entries with members: the parents beside the groups have none.
      groups = std::max<size_t>(
          groups, std::count_if(group_curves.begin(), group_curves.end(),
                                [](const plot::Curve& c) { return !c.members.empty(); }));
      chart->setFigure(std::move(shown), /*rewritten=*/true);
      chart->setMarks({});  // a group's mean has no spikes of its own
      continue;
    }
    std::vector<const std::vector<db::MetricPoint>*> series;
    std::vector<plot::RunX> x;
    std::vector<ChartMark> marks;
    plot::CurveFigure skeleton = figure(metric, false, &series, &x, &left_out, &marks);
    const std::string name = metric;
    chart->setCurves(std::move(skeleton), std::move(series), std::move(x),
                     [this, name] { return figure(name, true); });
    chart->setMarks(std::move(marks));
  }
  if (grouped && plot::lines_marked(group_curves.size()) != markers_) {
    markers_ = !markers_;
    redraw();
    return;
  }
  QString caption =
      runs_.empty()
          ? QStringLiteral("select runs in the Runs view")
          : QStringLiteral("%1 run%2").arg(runs_.size()).arg(runs_.size() == 1 ? "" : "s");
  if (grouped && !runs_.empty())
    caption += QStringLiteral(" in %1 group%2").arg(groups).arg(groups == 1 ? "" : "s");
  if (!parents_.empty())
    caption +=
        QStringLiteral(" and the parent%1 of their forks").arg(parents_.size() == 1 ? "" : "s");
  if (left_out)
    caption += QStringLiteral(", %1 not shown (%2)")
                   .arg(left_out)
                   .arg(QString::fromStdString(plot::x_unavailable_reason(grouping().x)));
  caption_->setText(caption);
  refreshLegend(group_curves);
}

void DashboardView::refreshColourValues() {
  colour_values_.clear();
  if (colour_by_->currentIndex() <= 0) return;
  const std::string key = colour_by_->currentText().toStdString();
  std::set<std::string> values;
  for (const auto& r : runs_)
    if (auto tags = tags_.find(r.id); tags != tags_.end())
      if (auto tag = tags->second.find(key); tag != tags->second.end()) values.insert(tag->second);
  colour_values_.assign(values.begin(), values.end());
}

int DashboardView::styleOf(const db::RunRecord& run, std::string* colour_value) const {
  const int by_id = static_cast<int>(run.id % 1000000);
  // A parent is no value of the colour-by axis: its config may share one with a fork.
  if (colour_values_.empty() || isParent(run.id)) return by_id;
  auto tags = tags_.find(run.id);
  if (tags == tags_.end()) return by_id;
  auto tag = tags->second.find(colour_by_->currentText().toStdString());
  if (tag == tags->second.end()) return by_id;
  if (colour_value) *colour_value = tag->second;
  const auto at = std::lower_bound(colour_values_.begin(), colour_values_.end(), tag->second);
  return static_cast<int>(at - colour_values_.begin());
}

std::string DashboardView::curveLabel(const db::RunRecord& run) const {
  std::string value;
  styleOf(run, &value);
  std::string label = plot::run_short_name(run);
  if (auto tags = tags_.find(run.id); tags != tags_.end())
    if (const auto origin = db::fork_origin(tags->second)) label += " " + db::fork_label(*origin);
  if (isParent(run.id)) label += " (parent)";
  if (value.empty()) return label;
  return colour_by_->currentText().toStdString().substr(5) + "=" + value + "  " + label;
}

void DashboardView::refreshLegend(const std::vector<plot::Curve>& group_curves) {
  std::vector<SharedLegend::Entry> entries;
  if (!groupBy().isEmpty()) {
    for (const plot::Curve& c : group_curves) {
      QString members;
      for (const auto& m : c.members)
        members += (members.isEmpty() ? "" : ", ") + QString::fromStdString(m);
      entries.push_back({QString::fromStdString(c.label), c.style, QString(), members});
    }
  } else {
    // Queued runs last: they have no curve yet, and a live sweep's hundreds of them (the
    // highest ids) would otherwise push the runs that train out of sight.
    std::vector<const db::RunRecord*> listed = drawnRuns();
    std::stable_partition(listed.begin(), listed.end(),
                          [](const db::RunRecord* r) { return r->status != db::status::kQueued; });
    for (const db::RunRecord* listed_run : listed) {
      const db::RunRecord& run = *listed_run;
      // What is worth a line of its own: a run training (progress, ETA) or one that stopped
      // short (diverged, failed, ...); a finished run needs none.
      // The rate as the poller read it with the points: no store read on the UI thread.
      const auto rate = seconds_per_update_.find(run.id);
      const QString state = run_state_text(
          run, run.status == db::status::kRunning && rate != seconds_per_update_.end()
                   ? std::optional<double>(rate->second)
                   : std::nullopt);
      entries.push_back(
          {QString::fromStdString(curveLabel(run)), styleOf(run),
           run.status == db::status::kFinished && !run.diverged_step ? QString() : state,
           QString::fromStdString(run.name) + "\n" + state});
    }
  }
  legend_->setEntries(entries);
}

plot::CurveFigure DashboardView::frame(const std::string& metric) const {
  const plot::XAxis x = grouping().x;
  plot::CurveFigure figure;
  figure.title = metric;
  // Evaluations and schedules are drawn as they are (db/metric_presentation.h).
  figure.smoothing = db::metric::presentation_of(metric).smoothed ? smoothing() : 0;
  figure.y.label = metric;
  figure.y.scale = log_y_->isChecked() ? plot::Scale::Log : plot::Scale::Linear;
  figure.x.label = plot::x_axis_label(x);
  figure.x_kind = plot::x_axis_name(x);
  if (budget_ && !budget_->least && budget_->axis == figure.x_kind) {
    figure.budget = plot::BudgetLine{
        budget_->x, experiments::budget_text(*budget_) + ": the Compare tab's budget"};
    // Named under the axis: the dashboard's legend is shared and shows runs only.
    char at[32];
    std::snprintf(at, sizeof at, "%g", budget_->x);
    figure.x.label += std::string(" -- dashed: the Compare tab's budget, ") + at;
  }
  return figure;
}

plot::CurveFigure DashboardView::groupFigure(const std::string& metric, int* left_out,
                                             std::vector<plot::Curve>* legend) {
  const GroupingChoice choice = grouping();
  auto& groups = groups_[metric];
  if (!groups || !groups->builtFor(runs_, choice, metric) || !groups->update(runs_)) {
    groups = std::make_unique<DashboardGroups>(cache_, runs_, tags_, choice, metric);
    groups->update(runs_);
  }
  plot::CurveFigure figure = frame(metric);
  figure.band = plot::band_name(choice.band);
  // A group's style is its place among the groups (their order is fixed by their keys), so
  // hiding one leaves the others' colours alone.
  std::vector<plot::Curve> all = groups->curves();
  for (size_t i = 0; i < all.size(); ++i) {
    all[i].style = static_cast<int>(i);
    const bool listed = std::any_of(legend->begin(), legend->end(),
                                    [&](const plot::Curve& c) { return c.label == all[i].label; });
    if (!listed) {
      plot::Curve entry;  // the legend needs the label, style and members only
      entry.label = all[i].label, entry.style = all[i].style, entry.members = all[i].members;
      legend->push_back(std::move(entry));
    }
    if (!legend_->isHidden(QString::fromStdString(all[i].label)))
      figure.curves.push_back(std::move(all[i]));
  }
  *left_out = std::max(*left_out, groups->leftOut());
  // The forks' parents, run by run: a parent is no member of the forks' groups (one run of
  // its own config), and a rescue is judged against it past the fork point.
  std::vector<const db::RunRecord*> parents;
  for (const auto& p : parents_) parents.push_back(&p);
  plot::CurveFigure own = figureOf(parents, metric, true, nullptr, nullptr, left_out, nullptr);
  int next_style = static_cast<int>(runs_.size());
  for (plot::Curve& parent : own.curves) {
    // Past every group's style (a group's is its index, and there are no more groups than
    // runs), the same in every chart: by its id it took the look of a group (#1, group 1).
    parent.style = next_style++;
    const bool listed = std::any_of(legend->begin(), legend->end(),
                                    [&](const plot::Curve& c) { return c.label == parent.label; });
    if (!listed) {
      plot::Curve entry;
      entry.label = parent.label, entry.style = parent.style;
      legend->push_back(std::move(entry));
    }
    figure.curves.push_back(std::move(parent));
  }
  return figure;
}

plot::CurveFigure DashboardView::figure(const std::string& metric, bool with_points,
                                        std::vector<const std::vector<db::MetricPoint>*>* series,
                                        std::vector<plot::RunX>* xs, int* left_out,
                                        std::vector<ChartMark>* marks) const {
  return figureOf(drawnRuns(), metric, with_points, series, xs, left_out, marks);
}

plot::CurveFigure DashboardView::figureOf(const std::vector<const db::RunRecord*>& runs,
                                          const std::string& metric, bool with_points,
                                          std::vector<const std::vector<db::MetricPoint>*>* series,
                                          std::vector<plot::RunX>* xs, int* left_out,
                                          std::vector<ChartMark>* marks) const {
  const plot::XAxis axis = grouping().x;
  plot::CurveFigure figure = frame(metric);
  int unplaced = 0;
  for (const db::RunRecord* drawn : runs) {
    const db::RunRecord& run = *drawn;
    const auto& points = cache_.series(run.id, metric);
    if (points.empty()) continue;
    const plot::RunX place(axis, run.started_at,
                           &cache_.series(run.id, plot::x_series_metric(axis)));
    if (!place.available()) {
      ++unplaced;
      continue;
    }
    plot::Curve curve;
    curve.label = curveLabel(run);
    if (legend_->isHidden(QString::fromStdString(curve.label))) continue;
    curve.style = styleOf(run);
    curve.metric = metric;
    if (with_points)
      for (const auto& p : points) {
        curve.step.push_back(place.at(p));
        curve.value.push_back(p.value);
      }
    if (series) series->push_back(&points);
    if (xs) xs->push_back(place);
    if (run.diverged_step) curve.diverged_step = place.at_step(points, *run.diverged_step);
    if (marks || with_points) {
      std::vector<ChartMark> own;  // this curve's
      const QString label = QString::fromStdString(curve.label);
      if (db::metric::is_spike_metric(metric))
        add_spike_marks(spikes_.spikes({run.id, metric}, points), points, place, label,
                        spikes_.rule(), &own);
      auto tags = tags_.find(run.id);
      if (const auto origin = tags == tags_.end() ? std::nullopt : db::fork_origin(tags->second))
        own.push_back(fork_mark(*origin, points, place, label));
      // On screen the chart lays them over the curves; an export draws them in the figure.
      if (with_points) carry_marks(own, curve);
      if (with_points && !curve.spike_x.empty())
        figure.spikes_are = plot::spike_legend(spikes_.rule());
      if (marks) marks->insert(marks->end(), own.begin(), own.end());
    }
    figure.curves.push_back(std::move(curve));
  }
  if (left_out) *left_out = std::max(*left_out, unplaced);
  return figure;
}

}  // namespace fathom::gui
