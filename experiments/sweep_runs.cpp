#include "experiments/sweep_runs.h"

#include <algorithm>

#include "base/util/error.h"
#include "base/util/strings.h"
#include "experiments/run_query.h"

namespace fathom::experiments {

std::optional<std::string> SweepRuns::note() const {
  if (where.empty()) return std::nullopt;
  return "only the runs where " + where + " (" + std::to_string(runs.size()) + " of " +
         std::to_string(total) + ")";
}

SweepRuns select_sweep_runs(const db::Store& store, const std::string& sweep,
                            const std::string& where) {
  auto records = sweep.empty() ? std::vector<db::RunRecord>{} : store.list_runs(sweep);
  if (records.empty())
    throw InputError(store.path(), 0, "--sweep", "no sweep named '" + sweep + "' in the store");
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
    throw InputError("fathom export", 0, "--where",
                     std::string("'") + out.where + "': " + e.what());
  }
  std::vector<std::string> unknown(query.fields());
  std::vector<std::string> known;  // for a typo's "did you mean": the first run's fields
  for (auto& rec : records) {
    auto config = nlohmann::json::parse(rec.config_json, nullptr, /*allow_exceptions=*/false);
    if (config.is_discarded()) config = nlohmann::json::object();
    if (known.empty()) known = field_names(rec, config);
    const RunFields fields = fields_of(rec, config);
    unknown.erase(std::remove_if(unknown.begin(), unknown.end(),
                                 [&](const std::string& f) { return fields(f).has_value(); }),
                  unknown.end());
    if (query.matches(fields)) out.runs.push_back(std::move(rec));
  }
  if (out.runs.empty()) {
    std::string why =
        "keeps none of the " + std::to_string(out.total) + " runs of sweep '" + sweep + "'";
    for (size_t i = 0; i < unknown.size(); ++i)
      why += (i ? ", " : "; no run has ") + unknown[i] + did_you_mean_field(unknown[i], known);
    throw InputError("fathom export", 0, "--where", "'" + out.where + "' " + why);
  }
  return out;
}

}  // namespace fathom::experiments
