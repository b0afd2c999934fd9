#pragma once
// The sample translations a run stores at each validation (train.valid_samples): run tags
// samples.u<update> holding a JSON array of {"source", "reference", "hypothesis"} (a language
// model's also "sampled" and "top_k": core/train/valid_samples.h). Read back
// here for `fathom show` and the desktop app's run page.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace fathom::db {

struct ValidSample {
  std::string source, reference, hypothesis;
  // A language model's top-k sampled continuation (train.valid_sample_top_k); top_k 0: none.
  std::string sampled;
  int top_k = 0;
};

bool is_samples_tag(const std::string& key);

// Whether a stored run's config (runs.config_json) is a decoder-only language model, whose
// samples continue a prompt instead of translating a source.
bool continues_prompts(const std::string& config_json);

// The samples by update; a tag that does not parse is left out (a hand-edited store).
std::map<int64_t, std::vector<ValidSample>> validation_samples(
    const std::map<std::string, std::string>& tags);

}  // namespace fathom::db
