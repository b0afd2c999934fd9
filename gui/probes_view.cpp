#include "gui/probes_view.h"

#include <qcustomplot.h>
#include <QButtonGroup>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QRadioButton>
#include <QScrollArea>
#include <QSettings>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "db/run_status.h"
#include "gui/export_menu.h"
#include "gui/export_targets.h"
#include "gui/probe_hover.h"
#include "gui/runs_signature.h"
#include "gui/screen_style.h"
#include "gui/store_session.h"
#include "plot/plot_widget.h"
#include "plot/render.h"
#include "plot/style.h"

namespace fathom::gui {
namespace {

const char* const kPreferredProbe = "stream.rms";  // where Post-LN and Pre-LN differ most

// "run 12: norm=pre,seed=1" -- a sweep's runs are named "<sweep>/<what differs>".
std::string run_label(const db::RunRecord& run) {
  std::string name = run.name;
  if (!run.sweep.empty() && name.rfind(run.sweep + "/", 0) == 0)
    name = name.substr(run.sweep.size() + 1);
  return "run " + std::to_string(run.id) + (name.empty() ? "" : ": " + name);
}

bool has_heads(const db::ProbeSeries& series) {
  return !series.positions.empty() && parse_probe_position(series.positions.front()).head;
}

// The label of a row with its heads reduced: "enc.3.self_attn.h5" -> "enc.3.self_attn".
std::string sublayer_of(const std::string& position) {
  const size_t dot = position.rfind(".h");
  return dot == std::string::npos ? position : position.substr(0, dot);
}

}  // namespace

ProbesView::ProbesView(QWidget* parent) : QWidget(parent) {
  // File > Export... (Ctrl+E) writes every run's plot, a file each (right-click: one plot).
  set_figures_source(this, [this] { return figuresShown(); });
  probe_ = new QComboBox;
  probe_->setMinimumContentsLength(14);
  probe_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  probe_->setToolTip(QStringLiteral("the probes the selected runs recorded (docs/probes.md)"));
  heads_ = new QComboBox;
  heads_->addItem(QStringLiteral("max"));
  heads_->addItem(QStringLiteral("mean"));
  heads_->addItem(QStringLiteral("all"));
  heads_->setToolTip(
      QStringLiteral("per-head probes: each sub-layer's largest head, the heads' mean, or "
                     "every head a row"));
  heatmap_mode_ = new QRadioButton(QStringLiteral("&Heatmaps"));
  line_mode_ = new QRadioButton(QStringLiteral("L&ines"));
  heatmap_mode_->setChecked(true);
  heatmap_mode_->setToolTip(QStringLiteral("sub-layers top to bottom, updates left to right"));
  line_mode_->setToolTip(QStringLiteral("a line per sub-layer over training, coloured by depth"));
  auto* modes = new QButtonGroup(this);
  modes->addButton(heatmap_mode_);
  modes->addButton(line_mode_);

  auto* bar = new QHBoxLayout;
  auto* probe_label = new QLabel(QStringLiteral("&Probe"));
  probe_label->setBuddy(probe_);
  auto* heads_label = new QLabel(QStringLiteral("H&eads"));
  heads_label->setBuddy(heads_);
  bar->addWidget(probe_label);
  bar->addWidget(probe_);
  bar->addSpacing(12);
  bar->addWidget(heads_label);
  bar->addWidget(heads_);
  bar->addSpacing(12);
  bar->addWidget(heatmap_mode_);
  bar->addWidget(line_mode_);
  bar->addStretch(1);

  auto* host = new QWidget;
  grid_ = new QGridLayout(host);
  grid_->setContentsMargins(0, 0, 0, 0);
  auto* scroll = new QScrollArea;
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setWidget(host);

  note_ = new QLabel;
  note_->setWordWrap(true);
  note_->setTextFormat(Qt::PlainText);
  // The read-out never changes the layout: one line, its width ignored, its height fixed.
  hover_ = new QLabel;
  hover_->setTextFormat(Qt::PlainText);
  hover_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
  hover_->setFixedHeight(hover_->fontMetrics().height() + 4);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(note_);
  layout->addWidget(scroll, 1);
  layout->addWidget(hover_);

  reader_ = new ProbeReader(this);
  reader_->setQuery([this] { return nextQuery(); });
  connect(reader_, &ProbeReader::probesRead, this,
          [this](const std::shared_ptr<const ProbeAnswer>& answer) { apply(*answer); });
  connect(reader_, &ProbeReader::failed, this, &ProbesView::error);
  connect(probe_, &QComboBox::currentTextChanged, this, [this](const QString& probe) {
    if (!probe.isEmpty()) wanted_probe_ = probe;
    redraw();
    if (session_) reader_->request();  // another probe: its points are read now
  });
  connect(heads_, &QComboBox::currentIndexChanged, this, [this] { redraw(); });
  connect(heatmap_mode_, &QRadioButton::toggled, this, [this] { redraw(); });
  redraw();
}

void ProbesView::setStore(StoreSession* session, const QString& location) {
  session_ = session;
  reader_->setDatabase(session ? location : QString());
  forget();
  names_.clear();
  runs_signature_.clear();
  if (!session) all_.clear(), selected_.clear();
  updateProbeChoices();
  redraw();
}

void ProbesView::showRuns(const std::vector<db::RunRecord>& all,
                          const std::vector<db::RunRecord>& selected) {
  const std::string signature = runs_status_signature(all);
  const bool new_runs = signature != runs_signature_;
  if (new_runs) names_of_all_wanted_ = true;
  runs_signature_ = signature;
  all_.clear();
  all_.reserve(all.size());
  for (const auto& r : all) all_.emplace_back(r.id, r.status);
  // A resumed run (a new claim) rewrote its points after the checkpoint: read them again.
  bool resumed = false;
  for (const auto& r : all) {
    auto [it, fresh] = leases_.emplace(r.id, r.lease);
    if (!fresh && it->second != r.lease) {
      it->second = r.lease;
      for (auto c = cache_.begin(); c != cache_.end();)
        c = c->first.first == r.id ? cache_.erase(c) : std::next(c);
      resumed = true;
    }
  }
  if (resumed) ++generation_;
  std::vector<int64_t> before, now;
  for (const auto& r : selected_) before.push_back(r.id);
  for (const auto& r : selected) now.push_back(r.id);
  selected_ = selected;
  if (before != now || resumed) {
    updateProbeChoices();
    redraw();
  }
  if ((before != now || resumed || new_runs) && session_) reader_->request();
}

void ProbesView::poll() {
  if (session_) reader_->request();
}

void ProbesView::reload() {
  forget();
  names_.clear();
  names_of_all_wanted_ = true;
  if (session_) reader_->request();
}

bool ProbesView::reading() const { return reader_->busy(); }

void ProbesView::forget() {
  cache_.clear();
  ++generation_;
}

ProbeQuery ProbesView::nextQuery() {
  ProbeQuery query;
  query.generation = generation_;
  std::set<int64_t> name_runs;
  for (const auto& r : selected_) name_runs.insert(r.id);
  // Without a selection the hint names the runs that have probes: all of them once, then
  // the running ones, which may record their first probe point any time.
  for (const auto& [id, status] : all_)
    if (selected_.empty() && (names_of_all_wanted_ || status == db::status::kRunning))
      name_runs.insert(id);
  if (selected_.empty()) names_of_all_wanted_ = false;
  query.name_runs.assign(name_runs.begin(), name_runs.end());
  const std::string probe = currentProbe();
  if (!probe.empty())
    for (const auto& r : selected_) {
      auto it = cache_.find({r.id, probe});
      query.reads.push_back(
          {r.id, probe,
           it == cache_.end() || it->second.steps.empty() ? -1 : it->second.steps.back()});
    }
  return query;
}

void ProbesView::apply(const ProbeAnswer& answer) {
  bool changed = false;
  for (const auto& [run, names] : answer.names) {
    auto& known = names_[run];
    if (known != names) known = names, changed = true;
  }
  if (answer.generation != generation_) {
    // Asked before the cache was emptied (a resume, a reload): its points may not follow on.
    if (answer.generation != 0) reader_->request();
  } else {
    for (const auto& [read, points] : answer.series) {
      if (points.steps.empty()) continue;
      db::ProbeSeries& cached = cache_[{read.run, read.probe}];
      const int64_t last = cached.steps.empty() ? -1 : cached.steps.back();
      if (last != read.after_step) continue;  // not the continuation of what is cached
      if (cached.positions.empty()) cached.positions = points.positions;
      if (cached.positions != points.positions) continue;  // a new layout: left to a reload
      cached.steps.insert(cached.steps.end(), points.steps.begin(), points.steps.end());
      cached.values.insert(cached.values.end(), points.values.begin(), points.values.end());
      changed = true;
    }
  }
  if (!changed) return;
  updateProbeChoices();
  redraw();
}

void ProbesView::updateProbeChoices() {
  std::set<std::string> probes;
  for (const auto& r : selected_) {
    auto it = names_.find(r.id);
    if (it != names_.end()) probes.insert(it->second.begin(), it->second.end());
  }
  QStringList items;
  for (const auto& p : probes) items << QString::fromStdString(p);
  if (items == probeChoices()) return;
  QString current = wanted_probe_;
  if (!items.contains(current))
    current = items.contains(kPreferredProbe) ? QString(kPreferredProbe)
                                              : (items.isEmpty() ? QString() : items.front());
  const QSignalBlocker block(probe_);
  probe_->clear();
  probe_->addItems(items);
  probe_->setCurrentText(current);
  if (session_) reader_->request();  // the chosen probe may be new
}

QStringList ProbesView::probeChoices() const {
  QStringList items;
  for (int i = 0; i < probe_->count(); ++i) items << probe_->itemText(i);
  return items;
}

std::string ProbesView::currentProbe() const { return probe_->currentText().toStdString(); }

plot::HeadReduction ProbesView::currentHeads() const {
  switch (heads_->currentIndex()) {
    case 1:
      return plot::HeadReduction::Mean;
    case 2:
      return plot::HeadReduction::All;
    default:
      return plot::HeadReduction::Max;
  }
}

bool ProbesView::linesMode() const { return line_mode_->isChecked(); }

bool ProbesView::choose(const QString& probe, plot::HeadReduction heads, bool lines) {
  if (!probeChoices().contains(probe)) return false;
  {
    const QSignalBlocker b1(probe_), b2(heads_), b3(heatmap_mode_);
    probe_->setCurrentText(probe);
    wanted_probe_ = probe;
    heads_->setCurrentIndex(heads == plot::HeadReduction::Mean  ? 1
                            : heads == plot::HeadReduction::All ? 2
                                                                : 0);
    (lines ? line_mode_ : heatmap_mode_)->setChecked(true);
  }
  redraw();
  if (session_) reader_->request();
  return true;
}

QString ProbesView::hintWithoutSelection() const {
  QStringList with;
  for (const auto& [id, status] : all_) {
    auto it = names_.find(id);
    if (it != names_.end() && !it->second.empty()) with << QString::number(id);
  }
  const QString how = QStringLiteral(
      "Probes are recorded by training with train.probe_every: N (every N updates; "
      "docs/probes.md).");
  if (with.isEmpty()) return QStringLiteral("No run in this store has probes. ") + how;
  return QStringLiteral(
             "Select runs in the Runs tab (Ctrl+1) to see their probes side by side. "
             "Runs with probes: %1. ")
             .arg(with.join(QStringLiteral(", "))) +
         how;
}

void ProbesView::redraw() {
  hover_->clear();
  heatmaps_.clear();
  lines_.clear();
  const std::string probe = currentProbe();
  std::vector<std::pair<std::string, db::ProbeSeries>> runs;
  plot_runs_.clear();
  QStringList without;
  bool heads = false;
  // By id: a sweep's runs in the order it made them (Post-LN, Pre-LN, Admin), whatever the
  // runs table's sort.
  std::vector<db::RunRecord> in_order = selected_;
  std::sort(in_order.begin(), in_order.end(),
            [](const auto& a, const auto& b) { return a.id < b.id; });
  for (const auto& r : in_order) {
    auto it = cache_.find({r.id, probe});
    if (it == cache_.end() || it->second.steps.empty()) {
      without << QString::number(r.id);
      continue;
    }
    runs.emplace_back(run_label(r), it->second);
    plot_runs_.push_back(r.id);
    heads = heads || has_heads(it->second);
  }
  heads_->setEnabled(heads);
  if (!session_)
    note_->setText(QStringLiteral("Open a run store."));
  else if (selected_.empty())
    note_->setText(hintWithoutSelection());
  else if (runs.empty())
    note_->setText(
        probe.empty() && std::all_of(selected_.begin(), selected_.end(),
                                     [this](const auto& r) { return names_.count(r.id) > 0; })
            ? QStringLiteral("None of the selected runs has probes (yet). ") +
                  QStringLiteral("Probes are recorded by training with train.probe_every: N.")
            : QStringLiteral("Reading %1...").arg(QString::fromStdString(probe)));
  if (runs.empty()) {
    keepPlots(0);
    return;
  }
  if (linesMode())
    drawLines(runs);
  else
    drawHeatmaps(runs);
  QString note = linesMode() ? QStringLiteral(
                                   "A line per %1, dark = first, light = last; one y "
                                   "range for all runs.")
                                   .arg(heads && currentHeads() == plot::HeadReduction::All
                                            ? QStringLiteral("head")
                                            : QStringLiteral("sub-layer"))
                             : QStringLiteral("%1 run%2 on one colour range%3.")
                                   .arg(runs.size())
                                   .arg(runs.size() == 1 ? "" : "s")
                                   .arg(heatmaps_.front().log_colour
                                            ? QStringLiteral(" (log: the values span decades)")
                                            : QString());
  if (!without.isEmpty())
    note += QStringLiteral(" Without %1: run %2.")
                .arg(QString::fromStdString(probe), without.join(QStringLiteral(", ")));
  note_->setText(note + QStringLiteral(" Hover for values."));
}

QString ProbesView::cellText(size_t index, size_t row, size_t column) const {
  if (index >= plot_runs_.size()) return {};
  std::string label, position;
  int64_t step = 0;
  double value = 0;
  if (!linesMode()) {
    if (index >= heatmaps_.size()) return {};
    const plot::Heatmap& h = heatmaps_[index];
    if (row >= h.values.size() || column >= h.values[row].size()) return {};
    label = h.title;
    position = h.row_labels[row];
    step = std::stoll(h.col_labels[column]);
    value = h.values[row][column];
  } else {
    if (index >= lines_.size() || row >= lines_[index].series.size()) return {};
    const plot::LineSeries& s = lines_[index].series[row];
    if (column >= s.x.size()) return {};
    label = lines_[index].title;
    position = s.name;
    step = static_cast<int64_t>(s.x[column]);
    value = s.y[column];
  }
  HeadsAtPoint heads;
  auto it = cache_.find({plot_runs_[index], currentProbe()});
  if (it != cache_.end() && currentHeads() != plot::HeadReduction::All && has_heads(it->second))
    heads = heads_at_point(it->second, sublayer_of(position), column, currentHeads());
  return QString::fromStdString(
      probe_cell_text(label, currentProbe(), position, step, value, heads));
}

QString ProbesView::hoverText() const { return hover_->text(); }
QString ProbesView::noteText() const { return note_->text(); }

void ProbesView::saveSettings(QSettings& settings) const {
  if (!wanted_probe_.isEmpty()) settings.setValue("probes/probe", wanted_probe_);
  settings.setValue("probes/heads", heads_->currentIndex());
  settings.setValue("probes/lines", linesMode());
}

void ProbesView::restoreSettings(const QSettings& settings) {
  const QSignalBlocker b1(heads_), b2(heatmap_mode_);
  heads_->setCurrentIndex(std::clamp(settings.value("probes/heads", 0).toInt(), 0, 2));
  (settings.value("probes/lines", false).toBool() ? line_mode_ : heatmap_mode_)->setChecked(true);
  wanted_probe_ = settings.value("probes/probe").toString();
}

void ProbesView::extraScreenshots(const std::function<void(const QString& file)>& shoot) {
  if (plots_.empty()) return;
  const bool lines = linesMode();
  (lines ? heatmap_mode_ : line_mode_)->setChecked(true);
  shoot(lines ? QStringLiteral("probes-heatmaps.png") : QStringLiteral("probes-lines.png"));
  (lines ? line_mode_ : heatmap_mode_)->setChecked(true);
}

}  // namespace fathom::gui

#include "moc_probes_view.cpp"  // moc output for probes_view.h: compiled in this unit
