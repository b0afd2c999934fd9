#pragma once
// The live dashboard: one chart per chosen metric (loss, perplexity, learning rate, gradient
// norm, BLEU, ...) with a curve per shown run, updated as the runs train by polling only the
// new points. Smoothing (debiased EMA), log y axes, and colour by run or by a sweep axis
// (the run's axis.<key> tag) apply to every chart. The points are read in a worker thread
// (metric_poller.h) and merged here when they arrive.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <QWidget>

#include "db/store.h"
#include "experiments/comparison_table.h"
#include "gui/dashboard_groups.h"
#include "gui/metric_cache.h"
#include "gui/spike_cache.h"
#include "gui/workbench_view.h"
#include "plot/figure.h"

class QCheckBox;
class QDoubleSpinBox;
class QSpinBox;
class QSplitter;
class QComboBox;
class QGridLayout;
class QHBoxLayout;
class QLabel;
class QListWidget;
class QListWidgetItem;
class QSlider;

namespace fathom::gui {

class CurvePlot;
struct ChartMark;
class SharedLegend;
class MetricPoller;
struct StoreSession;

class DashboardView : public QWidget, public WorkbenchView {
  Q_OBJECT
 public:
  explicit DashboardView(QWidget* parent = nullptr);

  // WorkbenchView: the selected runs; with none selected, the runs that train now and every
  // run shown that way before (a run that finishes stays), or else the latest sweep's runs --
  // live curves with no clicks that never vanish between runs; smoothing kept across
  // sessions; a second screenshot with seed groups. Forks shown bring their parent's curve,
  // labelled "(parent)" (run by run, beside seed groups too).
  void setStore(StoreSession* session, const QString&) override { setSession(session); }
  void showRuns(const std::vector<db::RunRecord>& all,
                const std::vector<db::RunRecord>& selected) override;
  void saveSettings(QSettings& settings) const override;
  void restoreSettings(const QSettings& settings) override;
  void extraScreenshots(const std::function<void(const QString& file)>& shoot) override;

  // nullptr: no store open. Drops every cached curve.
  void setSession(StoreSession* session);
  // The runs to show (the runs view's selection, or the running runs).
  void setRuns(const std::vector<db::RunRecord>& runs);
  // A sweep just started from the app: with nothing selected, its runs are what is followed
  // (queued ones listed, curves as they train) instead of the runs followed before.
  void followSweep(const QString& sweep);
  // Asks the polling thread for the new points of the shown curves; when they arrive they
  // are merged, the charts redrawn if any came, and pointsApplied() emitted.
  void poll() override;
  // Rebuilds every chart's figure from the cached points (what a poll with new points does).
  void replot() { redraw(); }
  // True while a read is on its way from the polling thread.
  bool pollPending() const;
  bool reading() const override { return pollPending(); }

  const MetricCache& cache() const { return cache_; }
  // The parents drawn beside the shown forks (refreshParents).
  const std::vector<db::RunRecord>& parents() const { return parents_; }
  QStringList shownMetrics() const;
  CurvePlot* chart(const QString& metric) const;
  SharedLegend* legend() const { return legend_; }
  // Lets the chart of `metric` fill the charts' area ("" : every chart again); a chart's
  // context menu asks for it.
  void enlarge(const std::string& metric);
  const std::string& enlargedChart() const { return enlarged_; }

  double smoothing() const;
  void setSmoothing(double weight);
  // "run" or a tag key such as "axis.model.norm"; false when no shown run has that tag.
  bool setColourBy(const QString& key);
  // Seed groups: "" (one curve per run), "axes" (every sweep axis but the seed) or keys,
  // comma-separated (sweep axes, tags, dotted config keys).
  void setGroupBy(const QString& keys);
  QString groupBy() const;
  // The line under the charts: "3 runs in 1 group and the parent of their forks".
  QString caption() const;
  // True when the shown runs carry a seed axis with two values or more (seed groups make sense).
  bool hasSeeds() const;
  void setBand(plot::Band band);
  void setXAxis(plot::XAxis axis);
  // The Compare tab's budget (ComparisonView::budgetRead; a definite one): a dashed line on
  // every chart whose x axis is its axis. nullopt: none.
  void setBudget(const std::optional<experiments::Budget>& budget);
  const std::optional<experiments::Budget>& budget() const { return budget_; }
  // The spikes marked on the training loss and gradient norm of single runs (not on seed
  // groups' means): k standard deviations above the mean of the N points before.
  void setSpikeRule(const SpikeRule& rule);
  SpikeRule spikeRule() const;

 signals:
  void error(const QString& message);
  void pointsApplied(int added);

 private:
  // The constructor's parts: the poller, the tool bar's widgets, the row above the charts (the
  // tool bar and the caption), the body (metric list and legend beside the chart grid), and
  // what each control's change does.
  void startPoller();
  void buildControls();
  QHBoxLayout* buildTopRow();
  QSplitter* buildBody();
  void connectControls();
  // Fills the metric list from the shown runs; true when the set of names changed.
  bool refreshMetricList();
  // A group's name in the metric list (System, db/metric_presentation.h), not a metric.
  static constexpr int kGroupHeaderRole = Qt::UserRole + 1;
  static bool isGroupHeader(const QListWidgetItem* item);
  void refreshColourChoices();
  void fillGroupChoices(const std::set<std::string>& axis_tags);  // "axis.KEY" tags of the runs
  void rebuildCharts();                                           // after the metric choice changed
  void redraw();
  void merge(const MetricUpdate& update);
  // A chart's figure from the cache: with every point (for export), or without (the chart
  // reads `series`, the cached points of its curves, in place); `marks`: its curves' spikes
  // and fork points.
  plot::CurveFigure figure(const std::string& metric, bool with_points,
                           std::vector<const std::vector<db::MetricPoint>*>* series = nullptr,
                           std::vector<plot::RunX>* x = nullptr, int* left_out = nullptr,
                           std::vector<ChartMark>* marks = nullptr) const;
  // figure() of `runs` only (the parents, in a grouped chart).
  plot::CurveFigure figureOf(const std::vector<const db::RunRecord*>& runs,
                             const std::string& metric, bool with_points,
                             std::vector<const std::vector<db::MetricPoint>*>* series,
                             std::vector<plot::RunX>* x, int* left_out,
                             std::vector<ChartMark>* marks) const;
  // The grouped figure of a chart, its groups brought up to date (built again when needed);
  // left_out: the runs it could not place on the x axis.
  // The grouped figure of `metric`, without the groups the legend hides; adds groups not yet in
  // `legend` to it.
  plot::CurveFigure groupFigure(const std::string& metric, int* left_out,
                                std::vector<plot::Curve>* legend);
  plot::CurveFigure frame(const std::string& metric) const;  // title, axes, smoothing
  // The shared legend's entries for what the charts show now (runs, or the charts' groups).
  void refreshLegend(const std::vector<plot::Curve>& group_curves);
  // A run's curve style: its id, or (coloured by an axis) the index of its value among the
  // shown runs' values, so a run keeps its look in every chart and across sessions.
  int styleOf(const db::RunRecord& run, std::string* colour_value = nullptr) const;
  // The shown runs' values of the colour-by axis, in order (styleOf's indices); empty when
  // colouring by run.
  void refreshColourValues();
  std::vector<std::string> colour_values_;
  std::string curveLabel(const db::RunRecord& run) const;
  GroupingChoice grouping() const;
  void trackCurves();  // the cache follows the shown runs, metrics and (tokens axis) target_tokens

  // The parents of shown forks, drawn first beside them, one curve each (gui/fork_parents.h);
  // not in seed groups. Read again when the shown runs change.
  void refreshParents();
  bool isParent(int64_t run) const;
  // What the charts draw run by run: the parents, then the shown runs.
  std::vector<const db::RunRecord*> drawnRuns() const;

  StoreSession* session_ = nullptr;
  std::vector<db::RunRecord> runs_;
  std::vector<db::RunRecord> parents_;
  std::map<int64_t, std::map<std::string, std::string>> tags_;
  MetricCache cache_;
  mutable SpikeCache spikes_;  // what figure() finds, kept until the points or the rule change
  MetricPoller* poller_;
  std::set<int64_t> followed_;
  std::string followed_sweep_;  // followSweep's, "" for none
  std::string enlarged_;        // the chart filling the area, "" for none          // with nothing
                                // selected: runs shown while running, kept
  std::map<std::string, bool> chosen_;  // metrics the user ticked or unticked; else defaults
  std::map<std::string, CurvePlot*> charts_;
  std::map<std::string, std::unique_ptr<DashboardGroups>> groups_;  // per chart, when grouped

  QListWidget* metrics_;
  QSlider* smoothing_;
  QLabel* smoothing_label_;
  QCheckBox* log_y_;
  SharedLegend* legend_;  // the one legend of every chart (gui/shared_legend.h)
  QComboBox* colour_by_;
  QString restored_colour_by_;  // the last session's colour-by, until a shown run has it
  QString store_location_;      // the store last opened: another one starts ungrouped
  QComboBox* group_by_;
  QComboBox* band_;
  QComboBox* x_axis_;
  QDoubleSpinBox* spike_k_;
  QSpinBox* spike_window_;
  QLabel* caption_;
  QGridLayout* grid_;
  std::optional<experiments::Budget> budget_;  // setBudget's
  bool updating_list_ = false;
  bool markers_ = true;  // the charts' lines carry markers (as the legend's entries do)
  // The running runs' rates as the poller last read them (their ETAs in the legend).
  std::map<int64_t, double> seconds_per_update_;
  int polls_ = 0;
};

}  // namespace fathom::gui
