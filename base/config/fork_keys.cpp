#include "base/config/fork_keys.h"

#include <set>

#include "base/config/config_diff.h"
#include "base/config/config_io.h"

namespace fathom {

bool forkable_key(const std::string& key) {
  static const std::set<std::string> model_keys = {"model.dropout", "model.attention_dropout",
                                                   "model.activation_dropout",
                                                   "model.fused_attention"};
  if (key == "train.optimizer") return false;
  return key.rfind("train.", 0) == 0 || key.rfind("eval.", 0) == 0 ||
         key.rfind("notify.", 0) == 0 || model_keys.count(key) || key == "device" || key == "name";
}

const char* const kForkableKeysText =
    "train.* (but train.optimizer), eval.*, model.dropout, model.attention_dropout, "
    "model.activation_dropout, model.fused_attention, device and notify.*";

std::vector<std::string> unforkable_changes(const RunConfig& parent, const RunConfig& fork) {
  std::vector<std::string> refused;
  for (const auto& [key, values] : differing_keys({config_to_json(parent), config_to_json(fork)}))
    if (!forkable_key(key)) refused.push_back(key);
  return refused;
}

}  // namespace fathom
