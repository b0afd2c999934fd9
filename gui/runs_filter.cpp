#include "gui/runs_filter.h"

#include <nlohmann/json.hpp>

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

void RunsFilter::setSourceModel(QAbstractItemModel* source) {
  for (const auto& c : sourceConnections_) disconnect(c);
  sourceConnections_.clear();
  configAnswers_.clear();
  // Connected before the proxy's own connections (made by the base call below), so the answers
  // are dropped before the proxy filters the changed rows again.
  if (source) {
    sourceConnections_.push_back(connect(source, &QAbstractItemModel::dataChanged, this,
                                         [this](const QModelIndex& top, const QModelIndex& bottom) {
                                           forgetConfigs(top.row(), bottom.row());
                                         }));
    sourceConnections_.push_back(connect(source, &QAbstractItemModel::modelAboutToBeReset, this,
                                         [this] { configAnswers_.clear(); }));
  }
  QSortFilterProxyModel::setSourceModel(source);
}

void RunsFilter::forgetConfigs(int first, int last) {
  const auto* model = qobject_cast<const RunsModel*>(sourceModel());
  for (int row = first; model && row <= last; ++row)
    if (const db::RunRecord* run = model->runAt(row)) configAnswers_.erase(run->id);
}

void RunsFilter::setText(const QString& text) {
  text_ = text.trimmed();
  try {
    query_ = experiments::RunQuery::parse(text_.toStdString());
    queryFields_ = experiments::lower_case_fields(query_.fields());
    error_.clear();
  } catch (const experiments::RunQueryError& e) {
    error_ = QString::fromStdString(e.what());
  }
  invalidateFilter();
  emit filterStatusChanged();
}

experiments::RunFields RunsFilter::fieldsOf(const db::RunRecord& run) const {
  const SharedText text = run.config_json;  // the row's: asked before it changes
  return experiments::fields_answering_config(
      run, [this, id = run.id, text, fields = queryFields_](const std::string& field) {
        // Made at a run's first config key only: a filter on status or metrics keeps nothing.
        ConfigAnswers& answers = configAnswers_[id];
        if (auto kept = answers.find(field); kept != answers.end()) return kept->second;
        // One pass over the text answers every field of the filter (a list, or a field the
        // filter does not name, parses it), each answer kept.
        auto read = experiments::config_fields_of(text, fields);
        if (fields)
          for (const std::string& name : *fields)
            if (!answers.count(name)) answers.emplace(name, read(name));
        return answers.emplace(field, read(field)).first->second;
      });
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
  if (query_.empty() || !model || model->runs().empty()) return QString();
  if (rowCount() > 0)
    return QStringLiteral("%1 of %2 runs shown").arg(rowCount()).arg(model->runs().size());
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
