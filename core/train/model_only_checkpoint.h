#pragma once
// A checkpoint without its optimizer state (`fathom prune --model-only`): what
// train.keep_checkpoint_optimizer: false writes, made afterwards from a checkpoint that has it,
// for a finished run's kept checkpoints -- analyses, `--checkpoint STEP` and averaging need the
// model alone, a third of the bytes under Adam.
#include <string>

namespace fathom {

// Writes `to` (whole, then renamed) with the model, trainer state and config of checkpoint
// `from`, rebuilt from the checkpoint alone. InputError naming `from` when it does not load.
void save_model_only(const std::string& from, const std::string& to);

}  // namespace fathom
