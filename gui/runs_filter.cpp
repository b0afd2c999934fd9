#include "gui/runs_filter.h"

#include "gui/runs_model.h"

namespace fathom::gui {

RunsFilter::RunsFilter(QObject* parent) : QSortFilterProxyModel(parent) {
  setSortRole(RunsModel::SortRole);
  setDynamicSortFilter(true);  // polled status changes re-sort and re-filter
}

void RunsFilter::setSweep(std::optional<QString> sweep) {
  sweep_ = std::move(sweep);
  invalidateFilter();
}

void RunsFilter::setText(const QString& text) {
  text_ = text.trimmed();
  invalidateFilter();
}

bool RunsFilter::filterAcceptsRow(int row, const QModelIndex& parent) const {
  const auto* model = qobject_cast<const RunsModel*>(sourceModel());
  const db::RunRecord* run = model ? model->runAt(row) : nullptr;
  if (!run) return true;
  if (sweep_ && QString::fromStdString(run->sweep) != *sweep_) return false;
  if (text_.isEmpty()) return true;
  for (const std::string* field : {&run->name, &run->status, &run->sweep})
    if (QString::fromStdString(*field).contains(text_, Qt::CaseInsensitive)) return true;
  return false;
}

}  // namespace fathom::gui
