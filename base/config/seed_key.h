#pragma once
// Whether a config key or sweep axis is a seed (train.seed, seed, data.seed ...): what seed
// groups, sweep axes and the tests over seeds leave out when they ask which runs are one
// configuration. A key ending "seeds_file" is not one.
#include <string>

namespace fathom {

inline bool is_seed_key(const std::string& key) {
  const size_t dot = key.rfind('.');
  return key.compare(dot == std::string::npos ? 0 : dot + 1, std::string::npos, "seed") == 0;
}

}  // namespace fathom
