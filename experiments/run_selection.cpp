#include "experiments/run_selection.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "base/util/error.h"
#include "base/util/strings.h"

namespace fathom::experiments {

std::vector<QueriedRun> queried_runs(std::vector<db::RunRecord> runs,
                                     const std::vector<std::string>& asked) {
  const auto names = asked.empty() ? nullptr : lower_case_fields(asked);
  std::vector<QueriedRun> out;
  out.reserve(runs.size());
  for (auto& run : runs) {
    RunFields fields = fields_parsing_config(run, names);
    out.push_back({std::move(run), std::move(fields)});
  }
  return out;
}

std::vector<std::string> fields_no_run_has(const std::vector<QueriedRun>& runs,
                                           const std::vector<std::string>& names) {
  std::vector<std::string> missing;
  for (const auto& name : names) {
    const bool had = std::any_of(runs.begin(), runs.end(),
                                 [&](const QueriedRun& r) { return r.fields(name).has_value(); });
    if (had || std::find(missing.begin(), missing.end(), name) != missing.end()) continue;
    missing.push_back(name);
  }
  if (missing.empty() || runs.empty()) return missing;
  auto config = nlohmann::json::parse(runs.front().run.config_json, nullptr,
                                      /*allow_exceptions=*/false);
  if (config.is_discarded()) config = nlohmann::json::object();
  const std::vector<std::string> known = field_names(runs.front().run, config);
  for (auto& name : missing) {
    // A last part that several keys end in (seed: train.seed, data.synthetic.seed) names none.
    std::vector<std::string> ending;
    for (const auto& k : known)
      if (k.size() > name.size() && k.compare(k.size() - name.size(), name.size(), name) == 0 &&
          k[k.size() - name.size() - 1] == '.')
        ending.push_back(k);
    if (ending.size() > 1) {
      std::string keys;
      for (const auto& k : ending) keys += (keys.empty() ? "" : ", ") + k;
      name += " (several keys end in it: " + keys + "; write one in full)";
    } else {
      name += did_you_mean_field(name, known);
    }
  }
  return missing;
}

namespace {

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

// a before b in ascending order: numbers by value, then text by bytes.
bool ascending(const QueryValue& a, const QueryValue& b) {
  if (a.number && b.number) return *a.number < *b.number;
  if (a.number != b.number) return a.number.has_value();  // numbers first
  return a.text < b.text;
}

RunQuery parsed_where(const std::string& where, const std::string& command) {
  try {
    return RunQuery::parse(where);
  } catch (const RunQueryError& e) {
    throw InputError(command, 0, "--where", "'" + where + "': " + e.what());
  }
}

void keep_matching(std::vector<QueriedRun>& runs, const RunQuery& query, const std::string& where,
                   const std::string& command) {
  if (const auto missing = fields_no_run_has(runs, query.fields()); !missing.empty())
    throw InputError(command, 0, "--where",
                     "'" + where + "': no run has " + joined(missing) + " (of " +
                         std::to_string(runs.size()) + " runs)");
  // A run left out lets go of its parsed config at once (~20 KB each: a filter over 100,000
  // runs held them all until the erase, 2 GB).
  for (auto& r : runs)
    if (!query.matches(r.fields)) r.fields = nullptr;
  runs.erase(
      std::remove_if(runs.begin(), runs.end(), [](const QueriedRun& r) { return !r.fields; }),
      runs.end());
}

void sort_by(std::vector<QueriedRun>& runs, const std::string& field, bool descending,
             const std::string& command) {
  if (const auto missing = fields_no_run_has(runs, {field}); !missing.empty() && !runs.empty())
    throw InputError(command, 0, "--sort", "no run listed has " + missing.front());
  std::vector<std::pair<std::optional<QueryValue>, size_t>> keys;  // value, position
  for (size_t i = 0; i < runs.size(); ++i) keys.emplace_back(runs[i].fields(field), i);
  std::stable_sort(keys.begin(), keys.end(), [&](const auto& a, const auto& b) {
    if (!a.first || !b.first) return a.first.has_value() && !b.first;  // missing last
    return descending ? ascending(*b.first, *a.first) : ascending(*a.first, *b.first);
  });
  std::vector<QueriedRun> sorted;
  sorted.reserve(runs.size());
  for (const auto& key : keys) sorted.push_back(std::move(runs[key.second]));
  runs = std::move(sorted);
}

}  // namespace

bool RunSelection::reads_fields() const {
  return !trim(where).empty() || !trim(sort).empty() || !columns.empty();
}

std::vector<QueriedRun> select_runs(std::vector<db::RunRecord> records,
                                    const RunSelection& selection, const std::string& command) {
  if (!selection.reads_fields()) {  // every run as it is: no config parsed
    std::vector<QueriedRun> runs(records.size());
    for (size_t i = 0; i < records.size(); ++i) runs[i].run = std::move(records[i]);
    if (selection.limit > 0 && runs.size() > selection.limit) runs.resize(selection.limit);
    return runs;
  }
  const std::string where = trim(selection.where);
  const RunQuery query = parsed_where(where, command);
  std::vector<std::string> asked = query.fields();  // all read in one pass of each config
  if (!trim(selection.sort).empty()) asked.push_back(trim(selection.sort));
  asked.insert(asked.end(), selection.columns.begin(), selection.columns.end());
  std::vector<QueriedRun> runs = queried_runs(std::move(records), asked);
  if (!where.empty()) keep_matching(runs, query, where, command);
  if (!trim(selection.sort).empty())
    sort_by(runs, trim(selection.sort), selection.descending, command);
  if (selection.limit > 0 && runs.size() > selection.limit) runs.resize(selection.limit);
  if (const auto missing = fields_no_run_has(runs, selection.columns);
      !missing.empty() && !runs.empty())
    throw InputError(command, 0, "--columns", "no run listed has " + missing.front());
  return runs;
}

}  // namespace fathom::experiments
