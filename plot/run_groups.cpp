#include "plot/run_groups.h"

#include <optional>
#include <set>

#include "db/run_json.h"

namespace fathom::plot {
namespace {

std::string without_axis_prefix(const std::string& key) {
  return key.rfind("axis.", 0) == 0 ? key.substr(5) : key;
}

std::string last_part(const std::string& key) {
  const auto dot = key.rfind('.');
  return dot == std::string::npos ? key : key.substr(dot + 1);
}

}  // namespace

std::string run_value(const Tags& tags, const std::string& config_json, const std::string& key) {
  if (key.empty()) return "";
  const std::string bare = without_axis_prefix(key);
  if (auto it = tags.find("axis." + bare); it != tags.end()) return it->second;
  if (auto it = tags.find(key); it != tags.end()) return it->second;
  return db::config_value(config_json, bare);
}

std::string run_short_name(const db::RunRecord& run) {
  std::string name = run.name;
  if (!run.sweep.empty() && name.rfind(run.sweep + "/", 0) == 0)
    name = name.substr(run.sweep.size() + 1);
  return "#" + std::to_string(run.id) + " " + name;
}

std::vector<std::string> expand_group_keys(const std::vector<std::string>& requested,
                                           const std::vector<Tags>& tags_of_runs) {
  std::vector<std::string> keys;
  auto add = [&](const std::string& key) {
    for (const auto& k : keys)
      if (k == key) return;
    keys.push_back(key);
  };
  for (const auto& key : requested) {
    if (key != "axes") {
      add(without_axis_prefix(key));
      continue;
    }
    std::set<std::string> axes, sweeps;
    for (const auto& tags : tags_of_runs)
      for (const auto& [tag, value] : tags) {
        if (tag.rfind("axis.", 0) == 0 && !is_seed_key(tag)) axes.insert(tag.substr(5));
        if (tag == kSweepTag) sweeps.insert(value);
      }
    // Runs of two sweeps with the same axis values are different experiments: the sweep
    // splits them first (they were merged silently, issue 36.10).
    if (sweeps.size() > 1) add(kSweepTag);
    // An axis every run has at one value splits nothing and would only lengthen each label
    // (part of a sweep: all its 24-layer runs); kept where every axis is so, to name the group.
    std::vector<std::string> varying;
    for (const auto& axis : axes) {
      std::set<std::optional<std::string>> values;  // nullopt: a run without the axis
      for (const auto& tags : tags_of_runs) {
        const auto it = tags.find("axis." + axis);
        values.insert(it == tags.end() ? std::nullopt : std::optional(it->second));
      }
      if (values.size() > 1) varying.push_back(axis);
    }
    for (const auto& axis :
         varying.empty() ? std::vector<std::string>(axes.begin(), axes.end()) : varying)
      add(axis);
  }
  return keys;
}

std::string group_label(const std::vector<std::string>& keys,
                        const std::vector<std::string>& values) {
  std::map<std::string, int> uses;
  for (const auto& k : keys) ++uses[last_part(k)];
  std::string label, sweep;
  for (size_t i = 0; i < keys.size(); ++i) {
    const std::string shown = uses[last_part(keys[i])] > 1 ? keys[i] : last_part(keys[i]);
    const std::string part = shown + "=" + (values[i].empty() ? "?" : values[i]);
    if (keys[i] == kSweepTag)
      sweep = part;
    else
      label += (label.empty() ? "" : ", ") + part;
  }
  if (!sweep.empty()) label += (label.empty() ? "" : ", ") + sweep;
  return label.empty() ? "all runs" : label;
}

}  // namespace fathom::plot
