#pragma once
// The sample translations a run stores at each validation (train.valid_samples): run tags
// samples.u<update> holding a JSON array of {"source", "reference", "hypothesis"}. Read back
// here for `fathom show` and the desktop app's run page.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace fathom::db {

struct ValidSample {
  std::string source, reference, hypothesis;
};

bool is_samples_tag(const std::string& key);

// The samples by update; a tag that does not parse is left out (a hand-edited store).
std::map<int64_t, std::vector<ValidSample>> validation_samples(
    const std::map<std::string, std::string>& tags);

}  // namespace fathom::db
