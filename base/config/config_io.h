#pragma once
// Reading a RunConfig from YAML (file, string or `--set key=value`), checking it, and
// writing it back out. Every error is an InputError naming file, line and dotted key.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/config/config.h"

namespace fathom {

// Parses `path`; relative data paths are resolved against the file's directory. Checks types
// and key names (suggesting the closest valid key) but not cross-field rules; see
// check_config().
RunConfig load_config_file(const std::string& path);

// Parses YAML text; `origin` names it in errors, `base_dir` resolves relative paths.
RunConfig load_config_string(const std::string& yaml, const std::string& origin,
                             const std::string& base_dir);

// Applies overrides of the form "model.d_model=256" (value is YAML: numbers, true, [a, b]).
void apply_overrides(RunConfig& config, const std::vector<std::string>& overrides);

// Cross-field and range checks (heads divide d_model, probabilities in [0,1), data files
// exist, ...). Method names (init, connection) are checked by the model registry.
void check_config(const RunConfig& config);

// The complete config, defaults included, in YAML and JSON (keys nested by section).
std::string config_to_yaml(const RunConfig& config);
nlohmann::json config_to_json(const RunConfig& config);

// "'v' is not one of a, b; did you mean 'c'?": the words for a value outside its choices
// (schema choices, registered method names), wherever the choices are known.
std::string not_one_of(const std::string& value, const std::vector<std::string>& choices);

// An InputError located at `key` in `config` (its file and line when known).
[[noreturn]] void config_error(const RunConfig& config, const std::string& key,
                               const std::string& message);

}  // namespace fathom
