#pragma once
// What a config must satisfy to be trained, beyond check_config() (which any reader of a
// config applies, `fathom params` too): the model fits this machine (memory_check.h), and
// there is data and an evaluation for its architecture.
#include "base/config/config.h"

namespace fathom {

// Throws InputError naming the file, line and key that stops training.
void check_trainable(const RunConfig& config);

}  // namespace fathom
