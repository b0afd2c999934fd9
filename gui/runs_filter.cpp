#include "gui/runs_filter.h"

#include "gui/run_brush.h"
#include "gui/runs_model.h"

namespace fathom::gui {

RunsFilter::RunsFilter(QObject* parent) : QSortFilterProxyModel(parent) {
  setSortRole(RunsModel::SortRole);
  setDynamicSortFilter(true);  // polled status changes re-sort and re-filter
  connect(this, &QAbstractItemModel::rowsInserted, this, &RunsFilter::filterStatusChanged);
  connect(this, &QAbstractItemModel::rowsRemoved, this, &RunsFilter::filterStatusChanged);
  connect(this, &QAbstractItemModel::modelReset, this, &RunsFilter::filterStatusChanged);
  connect(this, &QAbstractItemModel::layoutChanged, this, &RunsFilter::filterStatusChanged);
}

void RunsFilter::setSweep(std::optional<QString> sweep) {
  sweep_ = std::move(sweep);
  invalidateFilter();
  emit filterStatusChanged();
}

void RunsFilter::setBrush(const RunBrush* brush) {
  if (brush_) disconnect(brush_, nullptr, this, nullptr);
  brush_ = brush;
  if (brush_)
    connect(brush_, &RunBrush::changed, this, [this] {
      invalidateFilter();
      emit filterStatusChanged();
    });
  invalidateFilter();
}

void RunsFilter::setText(const QString& text) {
  text_ = text.trimmed();
  try {
    query_ = experiments::RunQuery::parse(text_.toStdString());
    error_.clear();
  } catch (const experiments::RunQueryError& e) {
    error_ = QString::fromStdString(e.what());
  }
  invalidateFilter();
  emit filterStatusChanged();
}

experiments::RunFields RunsFilter::fieldsOf(const db::RunRecord& run) const {
  auto config = configs_.find(run.id);
  if (config == configs_.end()) {
    auto parsed = nlohmann::json::parse(run.config_json, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded()) parsed = nlohmann::json::object();
    config =
        configs_.emplace(run.id, std::make_shared<const nlohmann::json>(std::move(parsed))).first;
  }
  return experiments::fields_of(run, config->second);
}

bool RunsFilter::filterAcceptsRow(int row, const QModelIndex& parent) const {
  const auto* model = qobject_cast<const RunsModel*>(sourceModel());
  const db::RunRecord* run = model ? model->runAt(row) : nullptr;
  if (!run) return true;
  if (sweep_ && QString::fromStdString(run->sweep) != *sweep_) return false;
  if (brush_ && !brush_->keeps(run->id)) return false;
  return query_.empty() || query_.matches(fieldsOf(*run));
}

QString RunsFilter::statusText() const {
  if (!error_.isEmpty()) return QStringLiteral("filter: ") + error_;
  const auto* model = qobject_cast<const RunsModel*>(sourceModel());
  if (query_.empty() || rowCount() > 0 || !model || model->runs().empty()) return QString();
  QStringList missing;  // fields no run has: the likeliest reason nothing matches
  for (const std::string& field : query_.fields()) {
    bool found = false;
    for (const auto& run : model->runs()) found = found || fieldsOf(run)(field).has_value();
    if (found) continue;
    const auto& first = model->runs().front();  // a typo is matched against a run's fields
    auto config = nlohmann::json::parse(first.config_json, nullptr, /*allow_exceptions=*/false);
    if (config.is_discarded()) config = nlohmann::json::object();
    missing << QString::fromStdString(
        field + experiments::did_you_mean_field(field, experiments::field_names(first, config)));
  }
  QString text = QStringLiteral("no run matches \"%1\"").arg(text_);
  if (!missing.isEmpty())
    text += QStringLiteral(" (no run has %1)").arg(missing.join(QStringLiteral(", ")));
  return text;
}

}  // namespace fathom::gui

#include "moc_runs_filter.cpp"  // moc output for runs_filter.h: compiled in this unit
