#include "experiments/sweep_runs.h"

#include <algorithm>

#include "base/util/error.h"
#include "base/util/strings.h"
#include "experiments/run_query.h"
#include "experiments/run_selection.h"

namespace fathom::experiments {

std::optional<std::string> SweepRuns::note() const {
  if (where.empty()) return std::nullopt;
  return "only the runs where " + where + " (" + std::to_string(runs.size()) + " of " +
         std::to_string(total) + ")";
}

SweepRuns select_sweep_runs(const db::Store& store, const std::string& sweep,
                            const std::string& where, const std::string& command) {
  auto records = sweep.empty() ? std::vector<db::RunRecord>{} : store.list_runs(sweep);
  if (records.empty())
    throw InputError(store.path(), 0, "--sweep", "no sweep named '" + sweep + "' in the store");
  return filter_sweep_runs(std::move(records), sweep, where, command);
}

SweepRuns filter_sweep_runs(std::vector<db::RunRecord> records, const std::string& sweep,
                            const std::string& where, const std::string& command) {
  SweepRuns out;
  out.total = records.size();
  out.where = trim(where);
  if (out.where.empty()) {
    out.runs = std::move(records);
    return out;
  }
  RunQuery query;
  try {
    query = RunQuery::parse(out.where);
  } catch (const RunQueryError& e) {
    throw InputError(command, 0, "--where", std::string("'") + out.where + "': " + e.what());
  }
  std::vector<QueriedRun> runs = queried_runs(std::move(records), query.fields());
  for (auto& r : runs)
    if (query.matches(r.fields)) out.runs.push_back(std::move(r.run));
  if (out.runs.empty()) {
    std::string why =
        "keeps none of the " + std::to_string(out.total) + " runs of sweep '" + sweep + "'";
    const auto missing = fields_no_run_has(runs, query.fields());
    for (size_t i = 0; i < missing.size(); ++i) why += (i ? ", " : "; no run has ") + missing[i];
    throw InputError(command, 0, "--where", "'" + out.where + "' " + why);
  }
  return out;
}

}  // namespace fathom::experiments
