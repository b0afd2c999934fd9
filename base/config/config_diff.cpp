#include "base/config/config_diff.h"

#include <set>

namespace fathom {
namespace {

// Every leaf of `j` by dotted key.
void flatten(const nlohmann::json& j, const std::string& prefix,
             std::map<std::string, std::string>& out) {
  if (j.is_object() && !j.empty()) {
    for (const auto& [key, value] : j.items())
      flatten(value, prefix.empty() ? key : prefix + "." + key, out);
  } else {
    out[prefix] = j.dump();
  }
}

}  // namespace

std::map<std::string, std::vector<std::string>> differing_keys(
    const std::vector<nlohmann::json>& configs) {
  std::vector<std::map<std::string, std::string>> flat(configs.size());
  std::set<std::string> keys;
  for (size_t i = 0; i < configs.size(); ++i) {
    flatten(configs[i], "", flat[i]);
    for (const auto& [key, value] : flat[i]) keys.insert(key);
  }
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& key : keys) {
    std::vector<std::string> values;
    for (const auto& f : flat) {
      auto it = f.find(key);
      values.push_back(it == f.end() ? "" : it->second);
    }
    for (const auto& v : values)
      if (v != values.front()) {
        out[key] = values;
        break;
      }
  }
  return out;
}

}  // namespace fathom
