#pragma once
// `fathom prune --model-only`: the kept checkpoints a prune leaves, rewritten without their
// optimizer state (core/train/model_only_checkpoint.h), for runs that kept every checkpoint
// for analyses along training: each stays, at about a third of its bytes under Adam, but can
// no longer be forked from.
#include <cstdint>
#include <string>

#include "db/store.h"
#include "experiments/checkpoint_prune.h"

namespace fathom::cli {

struct ModelOnlyResult {
  size_t files = 0;           // rewritten (listed: to rewrite)
  std::uintmax_t before = 0;  // their bytes before
  std::uintmax_t after = 0;   // and after (0 in a listing)
  // What removing the old files freed: less than `before` where a file had another name (a
  // resume point at a kept update, a fork's link), which keeps its bytes.
  std::uintmax_t released = 0;
  std::string warning;  // what could not be done ("" when all was)
};

// The plan's kept checkpoints that stay and hold the optimizer state. Listed (`apply` false):
// the plan's `to_slim` (planned with PruneChoice::model_only), nothing read. Applied: each file
// that holds it is rewritten under a new name, its row pointed at it (Store::replace_artifacts:
// refused, and the new file removed, when the run started meanwhile), then the old file removed. A
// skipped plan does nothing.
ModelOnlyResult keep_models_only(db::Store& store, const experiments::PrunePlan& plan, bool apply);

}  // namespace fathom::cli
