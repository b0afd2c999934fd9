#include "gui/runs_model.h"

#include <memory>
#include <utility>

#include "gui/free_elsewhere.h"
#include "gui/item_roles.h"
#include "gui/number_text.h"
#include "gui/run_state_text.h"

#include "base/util/same_value.h"
#include "db/metric_names.h"
#include "db/metric_presentation.h"
#include "db/run_status.h"
#include "experiments/launcher.h"
#include "experiments/run_control.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

#include <QBrush>
#include <QDateTime>
#include <nlohmann/json.hpp>

namespace fathom::gui {

RunsModel::RunsModel(QObject* parent) : QAbstractTableModel(parent) {}

QColor RunsModel::statusColor(const QString& shown) {
  const std::string status = shown.toStdString();
  if (status == db::status::kRunning) return QColor(0x1f, 0x77, 0xb4);   // blue: in progress
  if (status == db::status::kQueued) return QColor(0x7f, 0x7f, 0x7f);    // grey: waiting
  if (status == db::status::kFinished) return QColor(0x2c, 0xa0, 0x2c);  // green
  if (status == db::status::kDiverged)
    return QColor(0xd6, 0x27, 0x28);  // red: the interesting failure
  if (status == db::status::kFailed || status == db::status::kCrashed)
    return QColor(0xff, 0x7f, 0x0e);  // orange
  return QColor(0x8c, 0x56, 0x4b);    // cancelled: brown
}

namespace {

// The metric names of `runs` and `best`, in the presentation table's order: the metrics that say
// how a run did (valid_ppl, BLEU) before its bookkeeping (decode_time_s, params); names it
// lacks after, alphabetically.
std::vector<std::string> metric_names_of(const std::vector<db::RunRecord>& runs,
                                         const RunsModel::BestPoints& best) {
  std::set<std::string> names;
  for (const auto& r : runs)
    for (const auto& [name, value] : r.final_metrics) names.insert(name);
  for (const auto& [name, points] : best)
    if (!points.empty()) names.insert(name);
  std::vector<std::string> ordered(names.begin(), names.end());
  std::stable_sort(ordered.begin(), ordered.end(), [](const std::string& a, const std::string& b) {
    return db::metric::presentation_rank(a) < db::metric::presentation_rank(b);
  });
  return ordered;
}

}  // namespace

std::vector<RunsModel::MetricColumn> RunsModel::metricColumns(
    const std::vector<db::RunRecord>& runs, const BestPoints& best) const {
  std::vector<std::string> ordered = metric_names_of(runs, best);
  if (!metric_order_.isEmpty()) {  // the user's choice, in the user's order
    const std::set<std::string> have(ordered.begin(), ordered.end());
    ordered.clear();
    for (const QString& name : metric_order_)
      if (have.count(name.toStdString())) ordered.push_back(name.toStdString());
  }
  std::vector<MetricColumn> out;
  for (const auto& n : ordered) {
    out.push_back({n, false});
    if (auto it = best.find(n); it != best.end() && !it->second.empty()) out.push_back({n, true});
  }
  return out;
}

QStringList RunsModel::availableMetrics() const {
  QStringList out;
  for (const auto& n : metric_names_of(runs_, best_)) out << QString::fromStdString(n);
  return out;
}

void RunsModel::setMetricOrder(const QStringList& names) {
  if (names == metric_order_) return;
  beginResetModel();
  metric_order_ = names;
  metric_columns_ = metricColumns(runs_, best_);
  endResetModel();
}

void RunsModel::setBestPoints(BestPoints best) {
  if (best == best_) return;
  auto columns = metricColumns(runs_, best);
  if (columns != metric_columns_) {
    beginResetModel();
    best_ = std::move(best);
    metric_columns_ = std::move(columns);
    endResetModel();
    return;
  }
  best_ = std::move(best);
  for (size_t c = 0; c < metric_columns_.size() && !runs_.empty(); ++c)
    if (metric_columns_[c].best) {
      const int column = metricBase() + static_cast<int>(c);
      emit dataChanged(index(0, column), index(rowCount() - 1, column));
    }
}

// The rows a poll replaced are freed in a pool thread (gui/free_elsewhere.h).
static void release_elsewhere(std::vector<db::RunRecord> rows) {
  if (!rows.empty()) free_elsewhere(std::make_shared<std::vector<db::RunRecord>>(std::move(rows)));
}

void RunsModel::setRuns(std::vector<db::RunRecord> runs) {
  auto columns = metricColumns(runs, best_);
  // list_runs is oldest first, so a sweep recording its runs appends rows: insert those
  // instead of resetting, which would drop the user's selection.
  bool prefix = runs.size() >= runs_.size() && columns == metric_columns_;
  for (size_t i = 0; prefix && i < runs_.size(); ++i) prefix = runs[i].id == runs_[i].id;
  if (!prefix) {
    beginResetModel();
    release_elsewhere(std::exchange(runs_, std::move(runs)));
    metric_columns_ = std::move(columns);
    endResetModel();
    return;
  }
  const size_t old_rows = runs_.size();
  if (runs.size() > old_rows) {
    beginInsertRows({}, static_cast<int>(old_rows), static_cast<int>(runs.size()) - 1);
    runs_.insert(runs_.end(), runs.begin() + old_rows, runs.end());
    endInsertRows();
  }
  // Rows seen before: only status, updates, times and final metrics move while runs train, and
  // a config set again when a run resumes with changed settings -- by its holder, so while it
  // runs (comparing 16,000 configs each poll was a tenth of it).
  std::vector<db::RunRecord> replaced;
  replaced.reserve(old_rows);
  for (size_t i = 0; i < old_rows; ++i) {
    const auto& a = runs_[i];
    const auto& b = runs[i];
    const bool held = a.status == db::status::kRunning || b.status == db::status::kRunning;
    const bool changed = a.status != b.status || a.updates != b.updates ||
                         !same_values(a.final_metrics, b.final_metrics) ||
                         a.heartbeat_at != b.heartbeat_at || a.error != b.error ||
                         (held && a.config_json != b.config_json);
    replaced.push_back(std::exchange(runs_[i], std::move(runs[i])));
    if (changed) {
      const int row = static_cast<int>(i);
      emit dataChanged(index(row, 0), index(row, columnCount() - 1));
    }
  }
  release_elsewhere(std::move(replaced));
}

void RunsModel::setJobs(std::map<int64_t, QString> jobs) {
  if (jobs == jobs_) return;
  jobs_ = std::move(jobs);
  if (!runs_.empty()) emit dataChanged(index(0, Job), index(rowCount() - 1, Job));
}

void RunsModel::setEarlyStops(std::map<int64_t, QString> why) {
  if (why == early_stops_) return;
  early_stops_ = std::move(why);
  if (!runs_.empty()) emit dataChanged(index(0, Status), index(rowCount() - 1, Status));
}

QString RunsModel::jobOf(const std::map<std::string, std::string>& tags) {
  return QString::fromStdString(
      experiments::worker_job(tags));  // as `fathom sweep status` shows it
}

QString RunsModel::jobShown(const std::map<std::string, std::string>& tags,
                            const std::string& status) {
  const QString job = jobOf(tags);
  return db::is_terminal_status(status) && job.startsWith(QStringLiteral("pid ")) ? QString() : job;
}

void RunsModel::setAxes(std::map<int64_t, std::map<std::string, std::string>> axes) {
  if (axes == axes_ && runs_.size() == compact_rows_) return;
  axes_ = std::move(axes);
  compact_rows_ = runs_.size();
  // Per sweep, each axis's values over its runs: the axes with two values or more (or missing
  // from some run) tell its runs apart.
  std::map<std::string, std::map<std::string, std::set<std::string>>> values;
  std::map<std::string, int> runs_of;
  for (const auto& run : runs_) {
    if (run.sweep.empty()) continue;
    ++runs_of[run.sweep];
    auto it = axes_.find(run.id);
    if (it == axes_.end()) continue;
    for (const auto& [key, value] : it->second) values[run.sweep][key].insert(value);
  }
  compact_names_.clear();
  for (const auto& run : runs_) {
    auto it = axes_.find(run.id);
    if (run.sweep.empty() || it == axes_.end() || runs_of[run.sweep] < 2) continue;
    QStringList parts;
    for (const auto& [key, value] : it->second)
      if (values[run.sweep][key].size() > 1) {
        const std::string last = key.substr(key.rfind('.') + 1);  // model.norm -> norm
        parts << QString::fromStdString(last + "=" + value);
      }
    if (!parts.isEmpty()) compact_names_[run.id] = parts.join(QLatin1Char(','));
  }
  if (!runs_.empty()) emit dataChanged(index(0, Name), index(rowCount() - 1, Name));
}

QString RunsModel::shownName(const db::RunRecord& run) const {
  auto it = compact_names_.find(run.id);
  return it == compact_names_.end() ? QString::fromStdString(run.name) : it->second;
}

void RunsModel::setCurrentLoss(std::map<int64_t, double> loss,
                               std::map<int64_t, double> seconds_per_update) {
  if (loss == loss_now_ && seconds_per_update == seconds_per_update_) return;
  loss_now_ = std::move(loss);
  seconds_per_update_ = std::move(seconds_per_update);
  if (!runs_.empty()) emit dataChanged(index(0, Updates), index(rowCount() - 1, LossNow));
}

const db::RunRecord* RunsModel::runAt(int row) const {
  return row >= 0 && row < static_cast<int>(runs_.size()) ? &runs_[row] : nullptr;
}

void RunsModel::setConfigColumns(const QStringList& keys) {
  beginResetModel();
  config_keys_ = keys;
  config_values_.clear();
  endResetModel();
}

const std::vector<QVariant>& RunsModel::configValues(const db::RunRecord& run) const {
  auto it = config_values_.find(run.id);
  if (it != config_values_.end()) return it->second;
  std::vector<QVariant> values;
  const auto json = nlohmann::json::parse(run.config_json, nullptr, /*allow_exceptions=*/false);
  for (const auto& key : config_keys_) {
    const nlohmann::json* node = &json;
    for (const auto& part : key.split('.')) {
      if (!node->is_object()) {
        node = nullptr;
        break;
      }
      auto child = node->find(part.toStdString());
      if (child == node->end()) {
        node = nullptr;
        break;
      }
      node = &*child;
    }
    if (!node)
      values.emplace_back();
    else if (node->is_number())
      values.emplace_back(node->get<double>());
    else if (node->is_string())
      values.emplace_back(QString::fromStdString(node->get<std::string>()));
    else
      values.emplace_back(QString::fromStdString(node->dump()));
  }
  return config_values_.emplace(run.id, std::move(values)).first->second;
}

int RunsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(runs_.size());
}

int RunsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid()
             ? 0
             : FixedCount + static_cast<int>(metric_columns_.size()) + config_keys_.size();
}

QVariant RunsModel::cell(const db::RunRecord& run, int column, bool for_sort) const {
  switch (column) {
    case Id:
      return QVariant::fromValue<qlonglong>(run.id);
    case Name:
      return shownName(run);
    case Sweep:
      return QString::fromStdString(run.sweep);
    case Status: {
      // A running run whose heartbeat went stale shows as crashed, as in the CLI.
      QString s = QString::fromStdString(experiments::shown_status(run, db::unix_now()));
      if (!for_sort && run.diverged_step) s += QStringLiteral(" @%1").arg(*run.diverged_step);
      if (!for_sort && run.status == db::status::kFinished && early_stops_.count(run.id))
        s += QStringLiteral(" (early stop)");
      return s;
    }
    case Updates:
      // A running run's progress and ETA ("120/300 (40%), ETA 2:10"), sorted by its count.
      if (!for_sort && run.status == db::status::kRunning) {
        const auto rate = seconds_per_update_.find(run.id);
        const QString state = run_state_text(run, rate == seconds_per_update_.end()
                                                      ? std::nullopt
                                                      : std::optional<double>(rate->second));
        if (state.startsWith(QStringLiteral("running ")))
          return state.mid(static_cast<int>(std::strlen("running ")));
      }
      return QVariant::fromValue<qlonglong>(run.updates);
    case LossNow: {
      auto it = loss_now_.find(run.id);
      if (it == loss_now_.end() || run.status != db::status::kRunning) return {};
      return for_sort ? QVariant(it->second) : QVariant(number_text(it->second));
    }
    case Host:
      return QString::fromStdString(run.host);
    case Job: {
      auto it = jobs_.find(run.id);
      return it == jobs_.end() ? QString() : it->second;
    }
    default:
      break;
  }
  int c = column - FixedCount;
  const auto& values = configValues(run);
  if (c < static_cast<int>(config_keys_.size()))
    return c < static_cast<int>(values.size()) ? values[c] : QVariant();
  c -= static_cast<int>(config_keys_.size());
  return c < static_cast<int>(metric_columns_.size())
             ? metricCell(run, metric_columns_[c], for_sort)
             : QVariant();
}

const db::MetricPoint* RunsModel::bestPoint(const std::string& metric, int64_t run) const {
  auto points = best_.find(metric);
  if (points == best_.end()) return nullptr;
  auto it = points->second.find(run);
  return it == points->second.end() ? nullptr : &it->second;
}

QVariant RunsModel::metricCell(const db::RunRecord& run, const MetricColumn& column,
                               bool for_sort) const {
  double value;
  QString suffix;
  if (column.best) {
    const db::MetricPoint* best = bestPoint(column.name, run.id);
    if (!best) return {};
    value = best->value;  // finite: best_points leaves NaN and inf out
    suffix = QStringLiteral(" @%1").arg(best->step);
  } else {
    auto it = run.final_metrics.find(column.name);
    if (it == run.final_metrics.end()) return {};
    value = it->second;
  }
  if (for_sort) return std::isnan(value) ? QVariant() : QVariant(value);
  return number_text(value) + suffix;
}

QVariant RunsModel::data(const QModelIndex& index, int role) const {
  const db::RunRecord* run = runAt(index.row());
  if (!run) return {};
  switch (role) {
    case Qt::DisplayRole:
      return cell(*run, index.column(), false);
    case SortRole:
    case kRawValueRole:  // a CSV of the table holds the numbers, not their display
      return cell(*run, index.column(), true);
    case RunIdRole:
      return QVariant::fromValue<qlonglong>(run->id);
    case Qt::ForegroundRole:
      if (index.column() == Status)
        return QBrush(
            statusColor(QString::fromStdString(experiments::shown_status(*run, db::unix_now()))));
      return {};
    case Qt::BackgroundRole:
      if (index.column() == Status) {  // a tint that survives the alternating row colours
        QColor tint =
            statusColor(QString::fromStdString(experiments::shown_status(*run, db::unix_now())));
        tint.setAlpha(40);
        return QBrush(tint);
      }
      return {};
    case Qt::ToolTipRole:
      if (const int c = index.column() - metricBase();
          c >= 0 && c < static_cast<int>(metric_columns_.size()) && metric_columns_[c].best) {
        const std::string& name = metric_columns_[c].name;
        const db::MetricPoint* best = bestPoint(name, run->id);
        if (!best) return {};
        const auto higher = db::metric::higher_is_better(name);
        return QStringLiteral(
                   "%1 over training (%2 at update %3); the final value is in the column before")
            .arg(higher && *higher ? QStringLiteral("highest") : QStringLiteral("lowest"))
            .arg(QString::fromStdString(name))
            .arg(best->step);
      }
      if (index.column() == Name)  // the whole name: a narrow column cuts siblings alike
        return QString::fromStdString(run->name);
      if (auto it = early_stops_.find(run->id); index.column() == Status &&
                                                run->status == db::status::kFinished &&
                                                it != early_stops_.end())
        return QStringLiteral("stopped early: ") + it->second;
      if (!run->error.empty()) return QString::fromStdString(run->error);
      if (run->started_at > 0)
        return QStringLiteral("started %1")
            .arg(QDateTime::fromSecsSinceEpoch(static_cast<qint64>(run->started_at))
                     .toString(Qt::ISODate));
      return {};
    case Qt::TextAlignmentRole:
      if (index.column() == Id || index.column() == Updates || index.column() == LossNow ||
          index.column() >= metricBase())
        return int(Qt::AlignRight | Qt::AlignVCenter);
      return {};
    default:
      return {};
  }
}

QVariant RunsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* fixed[] = {"id",      "name",     "sweep", "status",
                                "updates", "loss now", "host",  "job"};
  if (section < FixedCount) return QString::fromLatin1(fixed[section]);
  int c = section - FixedCount;
  if (c < config_keys_.size()) return config_keys_[c];
  c -= static_cast<int>(config_keys_.size());
  if (c < static_cast<int>(metric_columns_.size()))
    return QString::fromStdString((metric_columns_[c].best ? "best " : "") +
                                  metric_columns_[c].name);
  return {};
}

}  // namespace fathom::gui

#include "moc_runs_model.cpp"  // moc output for runs_model.h: compiled in this unit
