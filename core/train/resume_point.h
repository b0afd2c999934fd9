#pragma once
// Where a resumed run starts from: its recorded checkpoint_last, or the one before it when that
// one is unreadable. Used by the trainer's resume step.
#include <string>
#include <utility>

#include "core/train/checkpoint.h"
#include "db/store.h"

namespace fathom {

class Optimizer;
class TransformerImpl;

// Restores the resume point: `last`, or, when that is unreadable (truncated, bit-flipped) or
// missing, `previous`, said on stderr. Returns the file it loaded; "" when there is neither (a
// fresh start); UnreadableResumePoint (core/train/trainer.h) naming both files when neither
// loads.
std::string load_resume_point(const std::string& last, const std::string& previous,
                              TransformerImpl& model, Optimizer& optimizer, TrainerState& state);

// The run's resume point and the one before it, as its artifact rows name them
// (db::resume_points, which also finds the files of runs trained before rows named them).
std::pair<std::string, std::string> recorded_resume_points(const db::Store& store, int64_t run,
                                                           const std::string& dir);

// Loads the resume point at `path` whole -- model, optimizer state and trainer state, into a
// model and optimizer rebuilt from its own config -- as a resume would, and discards it. Throws
// InputError naming the file when it would not load. `fathom prune --previous` asks this of a
// finished run's checkpoint_last before removing the fallback behind it.
void check_resume_point(const std::string& path);

}  // namespace fathom
