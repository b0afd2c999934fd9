// What the Compare tab reads in its worker thread: the chosen sweep's runs' tags and the axes
// they offer; the table of its runs, as `fathom export table` makes it, each row's best along a
// numeric axis, and a fork sweep's parent's value to read the bars against.
#include <algorithm>
#include <cmath>
#include <set>

#include "db/fork_tags.h"
#include "experiments/report_numbers.h"
#include "experiments/value_at_budget.h"
#include "gui/comparison_view.h"

namespace fathom::gui {

ComparisonView::TableRead ComparisonView::readTable(const db::Store& store,
                                                    experiments::TableOptions options,
                                                    std::vector<experiments::TableRun> runs,
                                                    std::optional<experiments::TableRun> parent,
                                                    const std::string& versus) {
  // The same table code as `fathom export table` (experiments/comparison_table.h).
  TableRead out;
  out.left_out = experiments::read_run_values(runs, store, options, kCompareTab);
  out.table = experiments::build_comparison_table(runs, options);
  // Tested against a row only while it is one of the table's.
  const auto& rows = out.table.row_labels;
  if (!versus.empty() && std::find(rows.begin(), rows.end(), versus) != rows.end()) {
    options.versus = versus;
    out.table = experiments::build_comparison_table(runs, options);
  }
  // Each row's best along a numeric axis and its interval, made here rather than on the UI
  // thread with the table.
  out.lines = plot::axis_lines(out.table);
  out.parent = parentReference(std::move(parent), store, options);
  out.options = std::move(options);  // a least budget as read_run_values found it
  return out;
}

std::optional<experiments::TableRun> ComparisonView::parentRun(
    const experiments::TableOptions& options) const {
  static const std::map<std::string, std::string> kNoTags;
  const std::optional<db::ForkOrigin>& origin = fork_origin_;
  if (!origin) return std::nullopt;
  const auto parent = std::find_if(all_.begin(), all_.end(),
                                   [&](const db::RunRecord& r) { return r.id == origin->parent; });
  if (parent == all_.end()) return std::nullopt;
  const auto tags = tags_.find(parent->id);
  return experiments::table_run(*parent, tags == tags_.end() ? kNoTags : tags->second,
                                options.metric, {});
}

std::optional<plot::BarReference> ComparisonView::parentReference(
    std::optional<experiments::TableRun> parent, const db::Store& store,
    experiments::TableOptions options) {
  if (!parent) return std::nullopt;
  std::vector<experiments::TableRun> one = {std::move(*parent)};
  experiments::read_run_values(one, store, options, kCompareTab);
  if (!one[0].metric || !std::isfinite(*one[0].metric)) return std::nullopt;
  return plot::BarReference{*one[0].metric, "parent #" + std::to_string(one[0].id) + ": " +
                                                experiments::report_number(*one[0].metric)};
}

ComparisonView::SweepTags ComparisonView::sweepTags(const db::Store& store,
                                                    const std::vector<int64_t>& runs) {
  SweepTags out;
  for (int64_t run : runs) out.tags[run] = store.tags(run);
  std::set<QString> axes;
  std::vector<std::map<std::string, std::string>> runs_tags;
  for (const auto& [run, tags] : out.tags) {
    runs_tags.push_back(tags);
    for (const auto& [key, value] : tags) {
      if (key.rfind("axis.", 0) == 0) axes.insert(QString::fromStdString(key.substr(5)));
      // A zip group ("model.norm+model.init", from the sweep's layout) is one choice too: a
      // method of a depth study is several keys, and one of them alone would pool methods.
      if (key != "sweep.axes") continue;
      const QStringList groups = QString::fromStdString(value).split(QLatin1Char(','));
      for (const auto& group : groups)
        if (group.contains(QLatin1Char('+'))) axes.insert(group);
      if (out.layout.isEmpty())
        for (const auto& group : groups)
          if (group != QStringLiteral("train.seed")) out.layout << group;
    }
  }
  out.axes = QStringList(axes.begin(), axes.end());
  out.fork_origin = db::shared_fork_origin(runs_tags);
  return out;
}

}  // namespace fathom::gui
