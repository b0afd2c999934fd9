// The dashboard's tool bar (a part of DashboardView, gui/dashboard_view.h): smoothing, log y,
// colour and group by, the groups' band, the x axis, "Fit all" and the spike rule -- the
// widgets, their layout, what each change redraws, and the values they hold.
#include <algorithm>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QToolBar>

#include "gui/curve_plot.h"
#include "gui/dashboard_view.h"
#include "gui/shared_legend.h"
#include "plot/run_groups.h"

namespace fathom::gui {
namespace {

// The group-by entry that asks for keys of the user's own.
constexpr char kCustomKeys[] = "\x01custom";

}  // namespace

void DashboardView::buildControls() {
  metrics_ = new QListWidget;
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
  x_axis_->addItem(QStringLiteral("compute"), QStringLiteral("compute"));
  x_axis_->addItem(QStringLiteral("time"), QStringLiteral("time"));
  x_axis_->setToolTip(
      QStringLiteral("x axis: update step, target tokens seen, training compute (model FLOPs: "
                     "runs of different depths at equal cost), or wall-clock time since the "
                     "run's start"));
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
  caption_ = new QLabel;
}

QHBoxLayout* DashboardView::buildTopRow() {
  auto* fit = new QPushButton(QStringLiteral("&Fit all"));
  fit->setToolTip(QStringLiteral("reset zoom of every chart (or double-click a chart)"));
  connect(fit, &QPushButton::clicked, this, [this] {
    for (auto& [name, chart] : charts_) chart->resetZoom();
  });
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
  return top;
}

void DashboardView::connectControls() {
  connect(smoothing_, &QSlider::valueChanged, this, [this] { redraw(); });
  connect(log_y_, &QCheckBox::toggled, this, [this] { redraw(); });
  connect(legend_, &SharedLegend::visibilityChanged, this, [this] { redraw(); });
  connect(legend_, &SharedLegend::hoverChanged, this, [this](const QString& label) {
    for (auto& [name, chart] : charts_) chart->setHighlight(label);
  });
  connect(colour_by_, &QComboBox::currentIndexChanged, this, [this] {
    restored_colour_by_.clear();  // the user's choice now, not the last session's
    redraw();
  });
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
  connect(metrics_, &QListWidget::itemChanged, this, [this](QListWidgetItem* item) {
    if (updating_list_ || isGroupHeader(item)) return;
    chosen_[item->text().toStdString()] = item->checkState() == Qt::Checked;
    rebuildCharts();
  });
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

void DashboardView::setBudget(const std::optional<experiments::Budget>& budget) {
  budget_ = budget;
  redraw();
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

void DashboardView::refreshColourChoices() {
  // The last session's choice is taken up once a shown run has that axis.
  const QString current =
      restored_colour_by_.isEmpty() ? colour_by_->currentText() : restored_colour_by_;
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
  if (index > 0) restored_colour_by_.clear();

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

}  // namespace fathom::gui
