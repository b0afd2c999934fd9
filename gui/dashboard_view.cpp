#include "gui/dashboard_view.h"

#include <algorithm>

#include <QSettings>
#include <QVBoxLayout>

#include "db/run_status.h"
#include "gui/fork_parents.h"
#include "gui/metric_poller.h"
#include "gui/run_state_text.h"
#include "gui/store_session.h"

// The view's parts: gui/dashboard_controls.cpp (the tool bar) and gui/dashboard_charts.cpp (the
// metric list and the chart grid).
namespace fathom::gui {

DashboardView::DashboardView(QWidget* parent) : QWidget(parent) {
  startPoller();
  buildControls();
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(buildTopRow());
  layout->addWidget(buildBody(), 1);
  connectControls();
  redraw();
}

void DashboardView::startPoller() {
  poller_ = new MetricPoller(this);
  poller_->setTails([this] { return cache_.tails(); });
  poller_->setRunning([this] {
    std::vector<db::RunRecord> running;
    for (const db::RunRecord* run : drawnRuns())
      if (run->status == db::status::kRunning) running.push_back(*run);
    return running;
  });
  connect(poller_, &MetricPoller::pointsRead, this,
          [this](std::shared_ptr<const MetricUpdate> update) { merge(*update); });
  connect(poller_, &MetricPoller::failed, this, &DashboardView::error);
}

void DashboardView::setSession(StoreSession* session) {
  session_ = session;
  // Another store's runs have other axes: a grouping or colouring by the last store's keys
  // would group the new one's by keys it may not have (issue 58 item 4). The same store again
  // (a reconnect) keeps them.
  const QString location = session ? QString::fromStdString(session->store.location()) : QString();
  if (session && !store_location_.isEmpty() && location != store_location_) {
    setGroupBy(QString());
    colour_by_->setCurrentIndex(0);
  }
  if (session) store_location_ = location;
  // The raw location (a URL may hold a password, which path() hides): the poller opens it.
  poller_->setDatabase(session ? QString::fromStdString(session->store.location()) : QString());
  runs_.clear();
  parents_.clear();
  followed_.clear();
  tags_.clear();
  groups_.clear();
  seconds_per_update_.clear();
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
  refreshParents();
  refreshColourChoices();
  refreshMetricList();
  rebuildCharts();
}

void DashboardView::refreshParents() {
  parents_.clear();
  if (!session_) return;
  try {
    for (int64_t id : fork_parents_to_draw(runs_, tags_))
      if (auto parent = session_->store.find_run(std::to_string(id))) {
        tags_[parent->id] = session_->store.tags(parent->id);  // its own fork tags, if any
        parents_.push_back(std::move(*parent));
      }
  } catch (const std::exception& e) {
    emit error(describe_store_error(e));
  }
}

QString DashboardView::caption() const { return caption_->text(); }

bool DashboardView::isParent(int64_t run) const {
  return std::any_of(parents_.begin(), parents_.end(),
                     [run](const db::RunRecord& p) { return p.id == run; });
}

std::vector<const db::RunRecord*> DashboardView::drawnRuns() const {
  std::vector<const db::RunRecord*> drawn;
  for (const auto& p : parents_) drawn.push_back(&p);
  for (const auto& r : runs_) drawn.push_back(&r);
  return drawn;
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
  bool rates_changed = false;
  for (const auto& [run, seconds] : update.seconds_per_update) {
    auto [at, inserted] = seconds_per_update_.try_emplace(run, seconds);
    rates_changed |= inserted || at->second != seconds;
    at->second = seconds;
  }
  const size_t added = cache_.apply(update);
  if (added)
    redraw();
  else if (rates_changed && groupBy().isEmpty())  // a group's entry shows no state
    refreshLegend({});
  emit pointsApplied(static_cast<int>(added));
}

void DashboardView::showRuns(const std::vector<db::RunRecord>& all,
                             const std::vector<db::RunRecord>& selected) {
  if (!selected.empty()) return setRuns(selected);
  // Follow what trains now and keep what was followed (a run that finishes stays, so the
  // charts do not go blank or change between runs); before anything ran, the latest sweep.
  for (const auto& r : all)
    if (r.status == db::status::kRunning ||
        (!followed_sweep_.empty() && r.sweep == followed_sweep_))
      followed_.insert(r.id);
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

void DashboardView::followSweep(const QString& sweep) {
  followed_sweep_ = sweep.toStdString();
  followed_.clear();  // the runs followed before give way to the new sweep's
}

void DashboardView::saveSettings(QSettings& settings) const {
  settings.setValue("dashboard/smoothing", smoothing());
  settings.setValue("dashboard/spike_k", spike_k_->value());
  settings.setValue("dashboard/spike_window", spike_window_->value());
  settings.setValue("dashboard/logY", log_y_->isChecked());
  settings.setValue("dashboard/colourBy", restored_colour_by_.isEmpty() ? colour_by_->currentText()
                                                                        : restored_colour_by_);
}

void DashboardView::restoreSettings(const QSettings& settings) {
  setSmoothing(settings.value("dashboard/smoothing", 0.6).toDouble());
  const SpikeRule defaults;
  setSpikeRule({settings.value("dashboard/spike_k", defaults.k).toDouble(),
                settings.value("dashboard/spike_window", defaults.window).toInt()});
  log_y_->setChecked(settings.value("dashboard/logY", false).toBool());
  // An axis of the runs to come: chosen when the first run that has it is shown.
  if (!setColourBy(settings.value("dashboard/colourBy").toString()))
    restored_colour_by_ = settings.value("dashboard/colourBy").toString();
  if (restored_colour_by_ == QStringLiteral("run")) restored_colour_by_.clear();
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
