#pragma once
// train.patience: training ends once that many validations in a row have not lowered the best
// validation loss -- the rule checkpoint_best is kept by, so the run stops exactly `patience`
// validations after its checkpoint_best (with train.patience_min_delta, after its last
// improvement by more than that). The count lives in the trainer state (and so in every
// checkpoint): a run stopped and resumed, or a data-parallel rank that never writes, stops at
// the same update as one uninterrupted process. Torch-free.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

namespace fathom {

struct ValidationRecord {
  double best_loss = INFINITY;  // the lowest validation loss so far (checkpoint_best's)
  int64_t best_update = 0;      // the update it was measured at (0: none yet)
  // train.patience counts from the last improvement: a loss below the previous improvement's by
  // more than train.patience_min_delta. With a min_delta of 0 that is the best above.
  double improved_loss = INFINITY;
  int64_t improved_update = 0;
  int64_t validations_since_best = 0;  // validations since that improvement
};

// Counts a validation at `update`; true when its loss is a new best (strictly lower: a NaN
// loss, a tie, is none). An improvement for patience must be lower than the last improvement
// by more than `min_delta` (nats): a creep below the noise of the validation loss is none.
inline bool record_validation(ValidationRecord& r, int64_t update, double loss,
                              double min_delta = 0) {
  if (loss < r.improved_loss - min_delta) {
    r.improved_loss = loss;
    r.improved_update = update;
    r.validations_since_best = 0;
  } else {
    ++r.validations_since_best;
  }
  if (!(loss < r.best_loss)) return false;
  r.best_loss = loss;
  r.best_update = update;
  return true;
}

// Whether train.patience (0: off) has run out.
inline bool patience_exhausted(const ValidationRecord& r, int patience) {
  return patience > 0 && r.validations_since_best >= patience;
}

// The run tag early_stop: "update 260: 3 validations since update 200 without a valid_loss
// below 1.2345 (train.patience 3, train.max_updates 1000)"; with a min_delta, "below 1.2345 -
// 0.001 (train.patience 3, train.patience_min_delta 0.001, ...)".
inline std::string early_stop_text(const ValidationRecord& r, int64_t update, int patience,
                                   int64_t max_updates, double min_delta = 0) {
  char reference[32], delta[32];
  std::snprintf(reference, sizeof reference, "%.6g", r.improved_loss);
  std::snprintf(delta, sizeof delta, "%g", min_delta);
  const std::string by = min_delta > 0 ? std::string(" - ") + delta : "";
  const std::string min_delta_key =
      min_delta > 0 ? std::string(", train.patience_min_delta ") + delta : "";
  return "update " + std::to_string(update) + ": " + std::to_string(r.validations_since_best) +
         " validations since update " + std::to_string(r.improved_update) +
         " without a valid_loss below " + reference + by + " (train.patience " +
         std::to_string(patience) + min_delta_key + ", train.max_updates " +
         std::to_string(max_updates) + ")";
}

}  // namespace fathom
