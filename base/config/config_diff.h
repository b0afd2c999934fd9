#pragma once
// Which settings differ between runs: the dotted keys (train.lr, model.norm) whose values are
// not the same in every config, with each config's value -- what `fathom compare` prints and
// what a resume records when it changes a setting.
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fathom {

// Keys of the configs (as config_to_json writes them) whose values differ, each with its value
// in every config as JSON text ("" where a config lacks the key), by key.
std::map<std::string, std::vector<std::string>> differing_keys(
    const std::vector<nlohmann::json>& configs);

}  // namespace fathom
