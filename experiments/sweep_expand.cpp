// Expanding a parsed sweep into runs, checking each run, and the --dry-run listing.
#include <algorithm>
#include <limits>
#include <set>
#include <sstream>

#include "base/config/config_io.h"
#include "base/util/error.h"
#include "base/util/strings.h"
#include "experiments/sweep_spec.h"

namespace fathom::experiments {
namespace {

std::string leaf_of(const std::string& key) { return key.substr(key.rfind('.') + 1); }

// Run-name labels: the last key component, or the whole key where two axes share it.
std::vector<std::string> name_labels(const std::vector<std::string>& keys) {
  std::vector<std::string> labels;
  for (const auto& key : keys) {
    const auto shared = std::count_if(keys.begin(), keys.end(), [&](const std::string& other) {
      return leaf_of(other) == leaf_of(key);
    });
    labels.push_back(shared > 1 ? key : leaf_of(key));
  }
  return labels;
}

// "[0.9, 0.98]" -> "[0.9,0.98]": names stay one token per axis.
std::string name_text(std::string text) {
  for (size_t at; (at = text.find(", ")) != std::string::npos;) text.erase(at + 1, 1);
  return text;
}

// The axis values of one combination, flattened in axis_keys() order.
using Combination = std::vector<const SweepValue*>;

std::vector<Combination> all_combinations(const SweepSpec& spec) {
  std::vector<Combination> out;
  std::vector<size_t> step(spec.axes.size(), 0);
  while (true) {
    Combination c;
    for (size_t a = 0; a < spec.axes.size(); ++a)
      for (const auto& v : spec.axes[a].steps[step[a]]) c.push_back(&v);
    out.push_back(std::move(c));
    // Odometer: the last axis (seeds when given) turns fastest.
    size_t a = spec.axes.size();
    while (a > 0 && ++step[a - 1] == spec.axes[a - 1].steps.size()) step[--a] = 0;
    if (a == 0) return out;
  }
}

bool excluded_by(const SweepExclude& rule, const std::vector<std::string>& keys,
                 const Combination& c) {
  for (const auto& [key, value] : rule.match) {
    const size_t k = std::find(keys.begin(), keys.end(), key) - keys.begin();
    if (k == keys.size() || c[k]->canonical != value.canonical) return false;
  }
  return true;
}

// check_config, then the caller's check; an error about an axis key moves to that value.
void check_run(const SweepSpec& spec, const SweepRun& run,
               const std::function<void(const RunConfig&)>& extra_check) {
  try {
    check_config(run.config);
    if (extra_check) extra_check(run.config);
  } catch (const InputError& e) {
    const std::string message = e.message() + " (in run " + run.name + ")";
    for (const auto& axis : run.axes)
      if (axis.key == e.field()) throw InputError(spec.file, axis.line, axis.key, message);
    throw InputError(e.file(), e.line(), e.field(), message);
  }
}

}  // namespace

size_t count_combinations(const SweepSpec& spec) {
  size_t count = 1;
  for (const auto& axis : spec.axes) {
    const size_t n = axis.steps.size();
    if (n != 0 && count > std::numeric_limits<size_t>::max() / n)
      return std::numeric_limits<size_t>::max();
    count *= n;
  }
  return count;
}

std::vector<SweepRun> expand_sweep(const SweepSpec& spec,
                                   const std::function<void(const RunConfig&)>& extra_check) {
  for (const auto& axis : spec.axes)
    if (axis.steps.empty() || axis.keys.empty())
      throw InputError(spec.file, axis.line, axis.keys.empty() ? "" : axis.keys[0],
                       "an axis needs at least one value");
  if (spec.axes.empty())
    throw InputError(spec.file, spec.line, "", "no axes: give grid, zip or seeds");
  if (const size_t count = count_combinations(spec); count > kMostRuns)
    throw InputError(spec.file, spec.line, "name",
                     "the axes multiply to " +
                         (count == std::numeric_limits<size_t>::max() ? std::string("over 10^19")
                                                                      : std::to_string(count)) +
                         " runs, more than the " + std::to_string(kMostRuns) +
                         " one sweep may hold: split it into several sweep files");
  const std::vector<std::string> keys = spec.axis_keys();
  const std::vector<std::string> labels = name_labels(keys);

  const std::vector<Combination> combinations = all_combinations(spec);
  std::vector<bool> rule_used(spec.exclude.size(), false);
  std::vector<Combination> kept;
  for (const auto& c : combinations) {
    bool drop = false;
    for (size_t r = 0; r < spec.exclude.size(); ++r)
      if (excluded_by(spec.exclude[r], keys, c)) drop = rule_used[r] = true;
    if (!drop) kept.push_back(c);
  }
  // A rule that matches nothing is a mistake (typically values of one zip group that never
  // go together), not a no-op.
  for (size_t r = 0; r < spec.exclude.size(); ++r)
    if (!rule_used[r])
      throw InputError(spec.file, spec.exclude[r].line, "exclude",
                       "this rule matches no run (zipped values only occur together as listed)");
  if (kept.empty())
    throw InputError(spec.file, spec.exclude_line, "exclude",
                     "the rules exclude all " + std::to_string(combinations.size()) + " runs");

  std::vector<SweepRun> runs;
  std::set<std::string> names;
  for (const auto& c : kept) {
    SweepRun run;
    run.config = spec.base;
    std::vector<std::string> parts;
    for (size_t k = 0; k < keys.size(); ++k) {
      set_config_key(run.config, keys[k], c[k]->yaml, {spec.file, c[k]->line});
      run.axes.push_back({keys[k], c[k]->text, c[k]->line});
      parts.push_back(labels[k] + "=" + name_text(c[k]->text));
    }
    run.name = spec.name + "/" + join(parts, ",");
    // Unique values per axis make this impossible; a cheap guard against a future change.
    if (!names.insert(run.name).second)
      throw InputError(spec.file, spec.line, "name", "two runs would be named '" + run.name + "'");
    run.config.name = run.name;
    run.config.locations["name"] = {spec.file, spec.line};
    check_run(spec, run, extra_check);
    runs.push_back(std::move(run));
  }
  return runs;
}

std::string describe_sweep(const std::vector<SweepRun>& runs) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {"#"};
  if (!runs.empty())
    for (const auto& axis : runs[0].axes) header.push_back(axis.key);
  header.push_back("name");
  rows.push_back(header);
  for (size_t i = 0; i < runs.size(); ++i) {
    std::vector<std::string> row = {std::to_string(i + 1)};
    for (const auto& axis : runs[i].axes) row.push_back(axis.value);
    row.push_back(runs[i].name);
    rows.push_back(std::move(row));
  }
  std::vector<size_t> width(header.size(), 0);
  for (const auto& row : rows)
    for (size_t j = 0; j < row.size() && j < width.size(); ++j)
      width[j] = std::max(width[j], row[j].size());
  std::ostringstream out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t j = 0; j < row.size(); ++j) {
      line += row[j];
      if (j + 1 < row.size()) line += std::string(width[j] - row[j].size() + 2, ' ');
    }
    out << line << "\n";
  }
  out << runs.size() << (runs.size() == 1 ? " run" : " runs") << "\n";
  return out.str();
}

}  // namespace fathom::experiments
