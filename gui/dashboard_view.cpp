#include "gui/dashboard_view.h"

#include <algorithm>

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QToolBar>
#include <QVBoxLayout>

#include "db/metric_names.h"
#include "db/metric_presentation.h"
#include "db/run_status.h"
#include "gui/curve_plot.h"
#include "gui/metric_poller.h"
#include "gui/run_marks.h"
#include "gui/run_state_text.h"
#include "gui/shared_legend.h"
#include "gui/store_session.h"
#include "plot/figure.h"
#include "plot/run_groups.h"

namespace fathom::gui {
namespace {

// The group-by entry that asks for keys of the user's own.
constexpr char kCustomKeys[] = "\x01custom";

}  // namespace

DashboardView::DashboardView(QWidget* parent) : QWidget(parent) {
  poller_ = new MetricPoller(this);
  poller_->setTails([this] { return cache_.tails(); });
  connect(poller_, &MetricPoller::pointsRead, this,
          [this](std::shared_ptr<const MetricUpdate> update) { merge(*update); });
  connect(poller_, &MetricPoller::failed, this, &DashboardView::error);
  metrics_ = new QListWidget;
  metrics_->setMaximumWidth(190);
  smoothing_ = new QSlider(Qt::Horizontal);
  smoothing_->setRange(0, 99);
  smoothing_->setValue(60);
  smoothing_->setToolTip(QStringLiteral(
      "debiased EMA weight; 0 draws the raw values. Validation and test metrics and the learning "
      "rate are never smoothed"));
  smoothing_->setMinimumWidth(80);
  smoothing_->setMaximumWidth(160);
  smoothing_label_ = new QLabel;
  log_y_ = new QCheckBox(QStringLiteral("&Log y"));
  legend_ = new SharedLegend;
  colour_by_ = new QComboBox;
  colour_by_->setToolTip(QStringLiteral("one colour per run, or per value of a sweep axis"));
  group_by_ = new QComboBox;
  // Narrow combo boxes (long entries show in full when opened): the controls fit 1100 px.
  for (QComboBox* box : {colour_by_, group_by_}) {
    box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    box->setMinimumContentsLength(9);
  }
  group_by_->setToolTip(QStringLiteral(
      "one curve per group of runs: the members' mean with a band, the member count in the legend, "
      "diverged members marked where they stopped; the mean is drawn where at least half the "
      "members are"));
  band_ = new QComboBox;
  band_->addItem(QStringLiteral("\u00b1 std"), QStringLiteral("std"));
  band_->addItem(QStringLiteral("min-max"), QStringLiteral("minmax"));
  band_->addItem(QStringLiteral("no band"), QStringLiteral("none"));
  band_->setToolTip(
      QStringLiteral("a group's shading: mean \u00b1 1 sample std, or its members' min to max"));
  x_axis_ = new QComboBox;
  x_axis_->addItem(QStringLiteral("update"), QStringLiteral("update"));
  x_axis_->addItem(QStringLiteral("target tokens"), QStringLiteral("tokens"));
  x_axis_->addItem(QStringLiteral("time"), QStringLiteral("time"));
  x_axis_->setToolTip(QStringLiteral(
      "x axis: update step, target tokens seen, or wall-clock time since the run's start"));
  fillGroupChoices({});
  // Spike marks (run_marks.h): the rule of `fathom show --spike-k --spike-window`.
  spike_k_ = new QDoubleSpinBox;
  spike_k_->setRange(0.5, 1000);
  spike_k_->setDecimals(1);
  spike_k_->setSingleStep(0.5);
  spike_k_->setValue(SpikeRule{}.k);
  spike_window_ = new QSpinBox;
  spike_window_->setRange(2, 10000);
  spike_window_->setValue(SpikeRule{}.window);
  const QString spike_tip = QStringLiteral(
      "spikes marked on train_loss and grad_norm (single runs, not group means): a raw point "
      "more than k sample standard deviations above the mean of the N points before it");
  spike_k_->setToolTip(spike_tip);
  spike_window_->setToolTip(spike_tip);
  auto* fit = new QPushButton(QStringLiteral("&Fit all"));
  fit->setToolTip(QStringLiteral("reset zoom of every chart (or double-click a chart)"));
  caption_ = new QLabel;

  // A tool bar, not a row of widgets: where the window is narrower than every control (a
  // laptop's 1100 px), the last ones move into its overflow menu instead of squeezing the
  // smoothing slider or widening the window.
  auto* controls = new QToolBar;
  controls->setMovable(false);
  controls->addWidget(new QLabel(QStringLiteral("Smoothing ")));
  controls->addWidget(smoothing_);
  controls->addWidget(smoothing_label_);
  controls->addSeparator();
  controls->addWidget(log_y_);
  controls->addSeparator();
  controls->addWidget(new QLabel(QStringLiteral("Colour by ")));
  controls->addWidget(colour_by_);
  controls->addWidget(new QLabel(QStringLiteral(" Group by ")));
  controls->addWidget(group_by_);
  controls->addWidget(band_);
  controls->addWidget(new QLabel(QStringLiteral(" X ")));
  controls->addWidget(x_axis_);
  controls->addSeparator();
  controls->addWidget(fit);
  controls->addSeparator();
  // One widget, so that a narrow window folds the spike rule into the overflow menu whole.
  auto* spike_rule = new QWidget;
  auto* spike_row = new QHBoxLayout(spike_rule);
  spike_row->setContentsMargins(0, 0, 0, 0);
  spike_row->setSpacing(2);
  spike_row->addWidget(new QLabel(QStringLiteral("Spikes k")));
  spike_row->addWidget(spike_k_);
  spike_row->addWidget(new QLabel(QStringLiteral(" N")));
  spike_row->addWidget(spike_window_);
  controls->addWidget(spike_rule);
  auto* top = new QHBoxLayout;
  top->addWidget(controls, 1);
  top->addWidget(caption_);

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
  metrics_->setMaximumWidth(QWIDGETSIZE_MAX);
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
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addWidget(body, 1);

  connect(smoothing_, &QSlider::valueChanged, this, [this] { redraw(); });
  connect(log_y_, &QCheckBox::toggled, this, [this] { redraw(); });
  connect(legend_, &SharedLegend::visibilityChanged, this, [this] { redraw(); });
  connect(legend_, &SharedLegend::hoverChanged, this, [this](const QString& label) {
    for (auto& [name, chart] : charts_) chart->setHighlight(label);
  });
  connect(colour_by_, &QComboBox::currentIndexChanged, this, [this] { redraw(); });
  connect(band_, &QComboBox::currentIndexChanged, this, [this] { redraw(); });
  // Typing "40" is not a redraw at "4" first: a value counts once typed (Return, focus out).
  spike_k_->setKeyboardTracking(false);
  spike_window_->setKeyboardTracking(false);
  connect(spike_k_, &QDoubleSpinBox::valueChanged, this, [this] { redraw(); });
  connect(spike_window_, &QSpinBox::valueChanged, this, [this] { redraw(); });
  connect(x_axis_, &QComboBox::currentIndexChanged, this, [this] {
    trackCurves();  // the tokens axis reads each run's target_tokens curve
    poll();
    redraw();
  });
  connect(group_by_, &QComboBox::activated, this, [this](int index) {
    if (group_by_->itemData(index).toString() != QLatin1String(kCustomKeys)) return;
    bool ok = false;
    const QString keys = QInputDialog::getText(
        this, QStringLiteral("Group by"),
        QStringLiteral("Keys, comma-separated (sweep axes, tags or dotted config keys, e.g. "
                       "model.norm,model.encoder_layers):"),
        QLineEdit::Normal, QString(), &ok);
    setGroupBy(ok ? keys.trimmed() : QString());
  });
  connect(group_by_, &QComboBox::currentIndexChanged, this, [this] {
    colour_by_->setEnabled(groupBy().isEmpty());  // groups are coloured by group
    band_->setEnabled(!groupBy().isEmpty());
    redraw();
  });
  connect(fit, &QPushButton::clicked, this, [this] {
    for (auto& [name, chart] : charts_) chart->resetZoom();
  });
  connect(metrics_, &QListWidget::itemChanged, this, [this](QListWidgetItem* item) {
    if (updating_list_) return;
    chosen_[item->text().toStdString()] = item->checkState() == Qt::Checked;
    rebuildCharts();
  });
  redraw();
}

QString DashboardView::groupBy() const {
  const QString keys = group_by_->currentData().toString();
  return keys == QLatin1String(kCustomKeys) ? QString() : keys;
}

bool DashboardView::hasSeeds() const {
  std::set<std::string> seeds;
  for (const auto& [run, tags] : tags_)
    for (const auto& [key, value] : tags)
      if (key.rfind("axis.", 0) == 0 && plot::is_seed_key(key)) seeds.insert(value);
  return seeds.size() > 1;
}

void DashboardView::setGroupBy(const QString& keys) {
  int index = group_by_->findData(keys);
  if (index < 0) {  // keys of the user's own: an entry of their own, above "custom keys..."
    index = group_by_->count() - 1;
    group_by_->insertItem(index, keys, keys);
  }
  group_by_->setCurrentIndex(index);
}

void DashboardView::setBand(plot::Band band) {
  band_->setCurrentIndex(band_->findData(
      QString::fromStdString(band == plot::Band::None ? "none" : plot::band_name(band))));
}

void DashboardView::setXAxis(plot::XAxis axis) {
  x_axis_->setCurrentIndex(x_axis_->findData(QString::fromStdString(plot::x_axis_name(axis))));
}

void DashboardView::setSpikeRule(const SpikeRule& rule) {
  spike_k_->setValue(rule.k);  // each redraws when it changes
  spike_window_->setValue(rule.window);
}

SpikeRule DashboardView::spikeRule() const { return {spike_k_->value(), spike_window_->value()}; }

GroupingChoice DashboardView::grouping() const {
  GroupingChoice choice;
  for (const QString& key : groupBy().split(QLatin1Char(','), Qt::SkipEmptyParts))
    choice.keys.push_back(key.trimmed().toStdString());
  choice.band = plot::parse_band(band_->currentData().toString().toStdString());
  choice.x = plot::parse_x_axis(x_axis_->currentData().toString().toStdString());
  return choice;
}

double DashboardView::smoothing() const { return smoothing_->value() / 100.0; }
void DashboardView::setSmoothing(double weight) { smoothing_->setValue(int(weight * 100 + 0.5)); }

bool DashboardView::setColourBy(const QString& key) {
  const int index = colour_by_->findText(key);
  if (index < 0) return false;
  colour_by_->setCurrentIndex(index);
  return true;
}

void DashboardView::setSession(StoreSession* session) {
  session_ = session;
  // The raw location (a URL may hold a password, which path() hides): the poller opens it.
  poller_->setDatabase(session ? QString::fromStdString(session->store.location()) : QString());
  runs_.clear();
  followed_.clear();
  tags_.clear();
  groups_.clear();
  cache_.clear();
  spikes_.clear();
  cache_.track({}, {});
  refreshMetricList();
  rebuildCharts();
}

void DashboardView::setRuns(const std::vector<db::RunRecord>& runs) {
  std::vector<int64_t> before, after;
  for (const auto& r : runs_) before.push_back(r.id);
  for (const auto& r : runs) after.push_back(r.id);
  if (before == after) {
    // A run that starts again (resumed) rewrites its points after its checkpoint.
    for (size_t i = 0; i < runs.size(); ++i)
      if (runs[i].status == db::status::kRunning && runs_[i].status != db::status::kRunning) {
        cache_.forget(runs[i].id);
        groups_.clear();  // they read the curves just dropped
      }
    runs_ = runs;  // statuses and diverged steps change while the ids stay
    return;
  }
  runs_ = runs;
  tags_.clear();
  if (session_) {
    try {
      for (const auto& r : runs_) tags_[r.id] = session_->store.tags(r.id);
    } catch (const std::exception& e) {
      emit error(describe_store_error(e));
    }
  }
  refreshColourChoices();
  refreshMetricList();
  rebuildCharts();
}

void DashboardView::refreshColourChoices() {
  const QString current = colour_by_->currentText();
  std::set<std::string> keys;
  for (const auto& [run, tags] : tags_)
    for (const auto& [key, value] : tags)
      if (key.rfind("axis.", 0) == 0) keys.insert(key);
  QSignalBlocker block(colour_by_);
  colour_by_->clear();
  colour_by_->addItem(QStringLiteral("run"));
  for (const auto& k : keys) colour_by_->addItem(QString::fromStdString(k));
  const int index = colour_by_->findText(current);
  colour_by_->setCurrentIndex(index < 0 ? 0 : index);

  fillGroupChoices(keys);
}

void DashboardView::fillGroupChoices(const std::set<std::string>& axis_tags) {
  // Group by: nothing, every axis but the seed, one axis, or keys of the user's own.
  const QString grouped = group_by_->currentData().toString();
  QSignalBlocker block_groups(group_by_);
  group_by_->clear();
  group_by_->addItem(QStringLiteral("none"), QString());
  group_by_->addItem(QStringLiteral("axes but seed"), QStringLiteral("axes"));
  for (const auto& k : axis_tags)
    if (!plot::is_seed_key(k))
      group_by_->addItem(QString::fromStdString(k.substr(5)), QString::fromStdString(k.substr(5)));
  group_by_->addItem(QStringLiteral("custom keys..."), QLatin1String(kCustomKeys));
  const int group_index = group_by_->findData(grouped);
  if (group_index >= 0 || grouped.isEmpty())
    group_by_->setCurrentIndex(std::max(group_index, 0));
  else
    setGroupBy(grouped);  // the user's own keys stay
  colour_by_->setEnabled(groupBy().isEmpty());
  band_->setEnabled(!groupBy().isEmpty());
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
  for (int i = 0; i < metrics_->count(); ++i)
    listed.insert(metrics_->item(i)->text().toStdString());
  if (listed == names && metrics_->count() == static_cast<int>(names.size())) return false;
  // Shown by default, in order, unit: the metric's presentation (db/metric_presentation.h).
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return db::metric::presentation_rank(a) < db::metric::presentation_rank(b);
  });
  updating_list_ = true;
  metrics_->clear();
  for (const auto& n : sorted) {
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
    if (metrics_->item(i)->checkState() == Qt::Checked) out << metrics_->item(i)->text();
  return out;
}

CurvePlot* DashboardView::chart(const QString& metric) const {
  auto it = charts_.find(metric.toStdString());
  return it == charts_.end() ? nullptr : it->second;
}

void DashboardView::trackCurves() {
  std::vector<std::string> metrics;
  for (const auto& m : shownMetrics()) metrics.push_back(m.toStdString());
  if (grouping().x == plot::XAxis::Tokens &&
      std::find(metrics.begin(), metrics.end(), db::metric::kTargetTokens) == metrics.end())
    metrics.push_back(db::metric::kTargetTokens);
  std::vector<int64_t> ids;
  for (const auto& r : runs_) ids.push_back(r.id);
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

void DashboardView::poll() {
  if (!session_) return;
  // A training run logs new metrics later (valid_ppl at its first validation): look for new
  // names every few seconds while one of the shown runs is running.
  const bool live = std::any_of(runs_.begin(), runs_.end(),
                                [](const auto& r) { return r.status == db::status::kRunning; });
  if (live && ++polls_ % 5 == 0 && refreshMetricList()) {
    rebuildCharts();  // polls the new curves itself
    return;
  }
  poller_->request();
}

bool DashboardView::pollPending() const { return poller_->busy(); }

void DashboardView::merge(const MetricUpdate& update) {
  const size_t added = cache_.apply(update);
  if (added) redraw();
  emit pointsApplied(static_cast<int>(added));
}

void DashboardView::redraw() {
  smoothing_label_->setText(QString::number(smoothing(), 'f', 2));
  spikes_.setRule(spikeRule());  // a new rule finds every curve's spikes again
  refreshColourValues();         // once a redraw, not once a run and chart
  int left_out = 0;  // runs with points that cannot go on the x axis (most over the charts)
  size_t groups = 0;
  const bool grouped = !groupBy().isEmpty();
  std::vector<plot::Curve> group_curves;  // every chart's groups, for the legend (no points)
  for (auto& [metric, chart] : charts_) {
    if (grouped) {
      plot::CurveFigure shown = groupFigure(metric, &left_out, &group_curves);
      groups = std::max(groups, group_curves.size());
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
  QString caption =
      runs_.empty()
          ? QStringLiteral("select runs in the Runs view")
          : QStringLiteral("%1 run%2").arg(runs_.size()).arg(runs_.size() == 1 ? "" : "s");
  if (grouped && !runs_.empty())
    caption += QStringLiteral(" in %1 group%2").arg(groups).arg(groups == 1 ? "" : "s");
  if (left_out)
    caption += QStringLiteral(", %1 not shown (no %2)")
                   .arg(left_out)
                   .arg(grouping().x == plot::XAxis::Tokens ? QStringLiteral("target_tokens curve")
                                                            : QStringLiteral("start time"));
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
  if (colour_values_.empty()) return by_id;
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
    if (const auto origin = fork_origin(tags->second)) label += " " + fork_label(*origin);
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
    const double now = QDateTime::currentMSecsSinceEpoch() / 1000.0;
    // Queued runs last: they have no curve yet, and a live sweep's hundreds of them (the
    // highest ids) would otherwise push the runs that train out of sight.
    std::vector<const db::RunRecord*> listed;
    for (const auto& run : runs_) listed.push_back(&run);
    std::stable_partition(listed.begin(), listed.end(),
                          [](const db::RunRecord* r) { return r->status != db::status::kQueued; });
    for (const db::RunRecord* listed_run : listed) {
      const db::RunRecord& run = *listed_run;
      // What is worth a line of its own: a run training (progress, ETA) or one that stopped
      // short (diverged, failed, ...); a finished run needs none.
      const QString state = run_state_text(run, now);
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
  return figure;
}

plot::CurveFigure DashboardView::figure(const std::string& metric, bool with_points,
                                        std::vector<const std::vector<db::MetricPoint>*>* series,
                                        std::vector<plot::RunX>* xs, int* left_out,
                                        std::vector<ChartMark>* marks) const {
  const plot::XAxis axis = grouping().x;
  plot::CurveFigure figure = frame(metric);
  int unplaced = 0;
  for (const auto& run : runs_) {
    const auto& points = cache_.series(run.id, metric);
    if (points.empty()) continue;
    const plot::RunX place(axis, run.started_at, &cache_.series(run.id, db::metric::kTargetTokens));
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
    if (marks) {
      const QString label = QString::fromStdString(curve.label);
      if (db::metric::is_spike_metric(metric))
        add_spike_marks(spikes_.spikes({run.id, metric}, points), points, place, label,
                        spikes_.rule(), marks);
      auto tags = tags_.find(run.id);
      if (const auto origin = tags == tags_.end() ? std::nullopt : fork_origin(tags->second))
        marks->push_back(fork_mark(*origin, points, place, label));
    }
    figure.curves.push_back(std::move(curve));
  }
  if (left_out) *left_out = std::max(*left_out, unplaced);
  return figure;
}

void DashboardView::showRuns(const std::vector<db::RunRecord>& all,
                             const std::vector<db::RunRecord>& selected) {
  if (!selected.empty()) return setRuns(selected);
  // Follow what trains now and keep what was followed (a run that finishes stays, so the
  // charts do not go blank or change between runs); before anything ran, the latest sweep.
  for (const auto& r : all)
    if (r.status == db::status::kRunning) followed_.insert(r.id);
  std::vector<db::RunRecord> shown;
  for (const auto& r : all)
    if (followed_.count(r.id)) shown.push_back(r);
  if (shown.empty()) {
    const db::RunRecord* latest = nullptr;
    for (const auto& r : all)
      if (!latest || r.created_at > latest->created_at ||
          (r.created_at == latest->created_at && r.id > latest->id))
        latest = &r;
    for (const auto& r : all)
      if (latest && (latest->sweep.empty() ? r.id == latest->id : r.sweep == latest->sweep))
        shown.push_back(r);
  }
  setRuns(shown);
}

void DashboardView::saveSettings(QSettings& settings) const {
  settings.setValue("dashboard/smoothing", smoothing());
  settings.setValue("dashboard/spike_k", spike_k_->value());
  settings.setValue("dashboard/spike_window", spike_window_->value());
}

void DashboardView::restoreSettings(const QSettings& settings) {
  setSmoothing(settings.value("dashboard/smoothing", 0.6).toDouble());
  const SpikeRule defaults;
  setSpikeRule({settings.value("dashboard/spike_k", defaults.k).toDouble(),
                settings.value("dashboard/spike_window", defaults.window).toInt()});
}

void DashboardView::extraScreenshots(const std::function<void(const QString& file)>& shoot) {
  if (!hasSeeds()) return;
  const QString before = groupBy();
  setGroupBy(QStringLiteral("axes"));  // the same runs as seed groups with their bands
  shoot(QStringLiteral("dashboard-grouped.png"));
  setGroupBy(before);
}

}  // namespace fathom::gui

#include "moc_dashboard_view.cpp"  // moc output for dashboard_view.h: compiled in this unit
