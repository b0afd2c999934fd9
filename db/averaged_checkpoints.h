#pragma once
// Which kept checkpoints a run's final evaluation averages (eval.average_checkpoints N,
// eval.average_by): the newest N, or the N whose update's train.best_metric is best -- ESPnet's
// habit of averaging the best checkpoints by a validation score, chosen on validation data like
// checkpoint_best and never on the test metric then reported. The trainer averages them
// (core/train/checkpoint_average.h); `fathom prune` keeps them. Torch-free.
#include <cstdint>
#include <map>
#include <string>
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

// How the mean of `averaged` is named where a command reads it (fathom translate, analyze,
// attention --average) and an analysis row records it: "mean of 3, updates 40 80 120", or with
// `best_by` a metric "mean of 3 best by valid_loss, updates ...". The desktop app finds a stored
// result by it.
std::string averaged_checkpoints_label(const std::vector<KeptCheckpoint>& averaged,
                                       const std::string& best_by = "");

// What train.keep_checkpoints `keep` does with eval.average_by best when the checkpoint at
// `update` is due, its validation in `metric_at` (kept after it): the `keep` best of `earlier`
// (the kept checkpoints before `update`) and the new one stay, as checkpoints_to_average ranks
// them -- a worse one is never written, the ones it displaces are retired. A checkpoint without
// a finite value ranks below every one with a value (it can never be averaged); the new one
// without a value (its valid_bleu decode cut short) is written and ranks at its next keep point.
struct BestRetention {
  bool write = true;
  std::vector<int64_t> retired;  // updates of `earlier`, oldest first
};
BestRetention retain_best(const std::vector<KeptCheckpoint>& earlier, int64_t update, int keep,
                          const std::map<int64_t, double>& metric_at, bool higher_is_better);

}  // namespace fathom::db
