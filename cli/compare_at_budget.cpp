#include "cli/compare_at_budget.h"

#include <algorithm>

#include "db/run_status.h"
#include "experiments/value_at_budget.h"

namespace fathom::cli {
namespace {

bool measured_at_end(const std::string& m) { return m.rfind("test_", 0) == 0; }

}  // namespace

MetricsAtBudget metrics_at_budget(const db::Store& store, const std::vector<db::RunRecord>& runs,
                                  const std::set<std::string>& metrics,
                                  const experiments::Budget& at) {
  MetricsAtBudget out;
  out.budget = at;
  std::vector<std::map<std::string, std::string>> tags;
  for (const auto& r : runs) tags.push_back(store.tags(r.id));
  std::set<std::string> said;  // each metric's reading says the same runs short of it
  std::vector<std::string> left_out, no_curve;
  experiments::CurveCache curves;  // the axis's curve read once for every metric
  for (const auto& metric : metrics) {
    if (measured_at_end(metric)) {
      left_out.push_back(metric);
      continue;
    }
    std::vector<experiments::TableRun> read;
    for (size_t i = 0; i < runs.size(); ++i)
      read.push_back(experiments::table_run(runs[i], tags[i], metric, {}));
    experiments::TableOptions options;
    options.metric = options.select_by = metric;
    options.at = at;
    const std::vector<std::string> notes =
        experiments::read_run_values(read, store, options, "fathom compare", &curves);
    out.budget = *options.at;  // a least one found
    // A number logged once, at the end (params, train_time_s), has no value inside a budget.
    if (std::none_of(read.begin(), read.end(), [](const experiments::TableRun& r) {
          return r.metric || r.status == db::status::kDiverged;
        })) {
      no_curve.push_back(metric);
      continue;
    }
    for (const auto& note : notes)
      if (said.insert(note).second) out.notes.push_back(note);
    out.metrics.push_back(metric);
    auto& values = out.values.emplace_back();
    out.diverged.assign(read.size(), "");
    for (size_t i = 0; i < read.size(); ++i) {
      const experiments::TableRun& r = read[i];
      // A divergence inside the budget is the run's result there (after it, it trained on).
      const bool diverged = r.status == db::status::kDiverged;
      values.push_back(diverged ? std::nullopt : r.metric);
      if (diverged)
        out.diverged[i] =
            r.diverged_step ? "diverged@" + std::to_string(*r.diverged_step) : "diverged";
    }
  }
  const auto names = [](const std::vector<std::string>& list) {
    std::string out;
    for (const auto& m : list) out += (out.empty() ? "" : ", ") + m;
    return out;
  };
  if (!left_out.empty())
    out.notes.push_back(names(left_out) +
                        ": measured once, at the end of training, so not at a budget (see them "
                        "without --at)");
  if (!no_curve.empty())
    out.notes.push_back(names(no_curve) + ": no run has a point of it inside the budget");
  return out;
}

}  // namespace fathom::cli
