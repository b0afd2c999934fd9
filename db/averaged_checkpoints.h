#pragma once
// Which kept checkpoints a run's final evaluation averages (eval.average_checkpoints N,
// eval.average_by): the newest N, or the N whose update's train.best_metric is best -- ESPnet's
// habit of averaging the best checkpoints by a validation score, chosen on validation data like
// checkpoint_best and never on the test metric then reported. The trainer averages them
// (core/train/checkpoint_average.h); `fathom prune` keeps them. Torch-free.
#include <cstdint>
#include <map>
#include <vector>

#include "db/artifact_files.h"

namespace fathom::db {

// From `kept` (oldest first), the checkpoints to average, oldest first: with `by_best` false the
// newest `n`; else the `n` with the best value in `metric_at` (update -> the validation metric
// at it; lower is better unless `higher_is_better`), the later checkpoint first among equal
// values. A checkpoint with no finite value at its update is no candidate. Fewer than `n` when
// fewer were kept (or have a value).
std::vector<KeptCheckpoint> checkpoints_to_average(std::vector<KeptCheckpoint> kept, int n,
                                                   bool by_best,
                                                   const std::map<int64_t, double>& metric_at,
                                                   bool higher_is_better);

}  // namespace fathom::db
