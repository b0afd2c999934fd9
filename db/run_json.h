#pragma once
// JSON views of store records, shared by `fathom runs --json`, `fathom show --json` and
// anything else that hands runs to other programs. Times are unix seconds, null where the
// event has not happened; NaN metrics become null (JSON has no NaN). Keys keep a reading
// order (ordered_json) so the output is easy to scan.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "db/store.h"

namespace fathom::db {

// Every RunRecord field except the config (config_json, config_yaml), which can be large.
nlohmann::ordered_json run_to_json(const RunRecord& run);

nlohmann::ordered_json artifact_to_json(const Artifact& artifact);

// The node at `keys` (config["model"]["init"] for {"model", "init"}); nullptr where absent.
const nlohmann::json* json_at(const nlohmann::json& root, const std::vector<std::string>& keys);

// A run's config value at a dotted key ("model.init" -> config["model"]["init"]) as text:
// strings as they are, other values as JSON ("6", "0.001"); "" when absent or unparsable.
std::string config_value(const std::string& config_json, const std::string& dotted_key);

}  // namespace fathom::db
