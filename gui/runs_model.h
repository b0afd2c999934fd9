#pragma once
// The runs table: one row per run of the store (Store::list_runs), columns id, name, sweep,
// status (coloured; "finished (early stop)" where train.patience ended the run), updates (a running
// run's progress and ETA), its training loss now (running runs), host and job (where its worker
// runs: a Slurm job such as 17_3, or a live local worker's pid), the config keys the user picks
// (read from config_json: what tells runs apart first), then every final metric any run has, in
// db/metric_presentation.h's order (valid_ppl before params) -- each followed, when best points are
// set, by "best NAME": the best point over training and its update. Sorting uses SortRole, which is
// numeric for numeric columns.
#include <map>
#include <vector>

#include <QAbstractTableModel>
#include <QColor>
#include <QStringList>

#include "db/store.h"

namespace fathom::gui {

class RunsModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  static constexpr int SortRole = Qt::UserRole + 1;   // numbers as numbers
  static constexpr int RunIdRole = Qt::UserRole + 2;  // the run's id, any column

  explicit RunsModel(QObject* parent = nullptr);

  // Replaces the rows. When the same runs come back (the usual poll) only changed cells are
  // signalled, so selection and scroll position survive.
  void setRuns(std::vector<db::RunRecord> runs);
  const std::vector<db::RunRecord>& runs() const { return runs_; }
  const db::RunRecord* runAt(int row) const;

  // Each run's worker job as its launcher names it (experiments::worker_job); runs not
  // in the map show none.
  void setJobs(std::map<int64_t, QString> jobs);
  // The job text of a run's tags: "17_3" (Slurm), "pid 4242" (local), "" (none recorded).
  static QString jobOf(const std::map<std::string, std::string>& tags);
  // As the table shows it for a run with `status`: an ended run's local pid names a process
  // that is gone (or, by now, another one), so it shows none; a Slurm job stays (sacct).
  static QString jobShown(const std::map<std::string, std::string>& tags,
                          const std::string& status);
  // Why train.patience ended each run it ended (its early_stop tag): the status column says
  // "finished (early stop)" and its tooltip says why; runs not in the map show their status.
  void setEarlyStops(std::map<int64_t, QString> why);
  // Each run's sweep axes (KEY -> value of its axis.KEY tags). A sweep run's name column then
  // shows the axes in which its sweep's runs differ ("norm=pre,seed=2"), so sibling runs
  // differ where a long name would be cut alike; the whole name is its tooltip.
  void setAxes(std::map<int64_t, std::map<std::string, std::string>> axes);
  QString shownName(const db::RunRecord& run) const;
  // Each running run's last train_loss point (the "loss now" column) and the seconds an update
  // takes it now (db/update_rate.h: the ETA in the updates column); others show none.
  void setCurrentLoss(std::map<int64_t, double> loss,
                      std::map<int64_t, double> seconds_per_update = {});

  // By metric, each run's best point over training (Store::best_points); a metric with points
  // gets a "best NAME" column beside its final value. Empty: no best columns.
  using BestPoints = std::map<std::string, std::map<int64_t, db::MetricPoint>>;
  void setBestPoints(BestPoints best);

  // The final metrics the user chose to see, in their order (metrics no run has are left out);
  // empty: every metric, in the presentation table's order.
  void setMetricOrder(const QStringList& names);
  const QStringList& metricOrder() const { return metric_order_; }
  // Every final metric any run has (or, with best points, a best point of), in the
  // presentation table's order: what a choice of metrics chooses from.
  QStringList availableMetrics() const;

  // Dotted config keys shown as extra columns, e.g. "model.norm".
  void setConfigColumns(const QStringList& keys);
  const QStringList& configColumns() const { return config_keys_; }

  static QColor statusColor(const QString& status);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  // The columns every table has, first and in this order; metric and config columns follow.
  enum Fixed { Id, Name, Sweep, Status, Updates, LossNow, Host, Job, FixedCount };

 private:
  QVariant cell(const db::RunRecord& run, int column, bool for_sort) const;
  struct MetricColumn {
    std::string name;
    bool best;  // the best point over training, not the final value
    bool operator==(const MetricColumn& o) const { return name == o.name && best == o.best; }
  };
  std::vector<MetricColumn> metricColumns(const std::vector<db::RunRecord>& runs,
                                          const BestPoints& best) const;
  QVariant metricCell(const db::RunRecord& run, const MetricColumn& column, bool for_sort) const;
  const db::MetricPoint* bestPoint(const std::string& metric, int64_t run) const;  // null: none
  // The config column values of a run: config_json is parsed once per run (it never
  // changes), not on every poll.
  const std::vector<QVariant>& configValues(const db::RunRecord& run) const;

  std::vector<db::RunRecord> runs_;
  std::map<int64_t, QString> jobs_;
  std::map<int64_t, QString> early_stops_;
  std::map<int64_t, double> loss_now_;
  std::map<int64_t, double> seconds_per_update_;  // a running run's rate now: its ETA
  std::map<int64_t, std::map<std::string, std::string>> axes_;
  std::map<int64_t, QString> compact_names_;  // from axes_: the differing axes of sweep runs
  size_t compact_rows_ = 0;                   // the rows they were made for
  int metricBase() const { return FixedCount + static_cast<int>(config_keys_.size()); }
  std::vector<MetricColumn> metric_columns_;
  BestPoints best_;
  QStringList config_keys_;
  QStringList metric_order_;
  mutable std::map<int64_t, std::vector<QVariant>> config_values_;
};

}  // namespace fathom::gui
