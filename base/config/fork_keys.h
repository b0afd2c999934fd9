#pragma once
// What a fork may change (`fathom train --fork`, a fork sweep; core/train/fork.h): how it trains
// on (train.*, but the optimizer whose moments the checkpoint holds), how it is evaluated
// (eval.*), the dropouts, the attention kernel, the device, its alerts (notify.*) and its name --
// never what its parent's checkpoint holds: the model (model.*: its shape, its function) and the
// data with the position in it (data.*). Torch-free: the desktop app's sweep check reads it too.
#include <string>
#include <vector>

#include "base/config/config.h"

namespace fathom {

bool forkable_key(const std::string& key);
// The same, said for a message: "train.* (but train.optimizer), eval.*, ...".
extern const char* const kForkableKeysText;
// The keys whose values differ between `parent` and `fork` (configs) that a fork may not
// change, in key order; empty when none.
std::vector<std::string> unforkable_changes(const RunConfig& parent, const RunConfig& fork);

}  // namespace fathom
