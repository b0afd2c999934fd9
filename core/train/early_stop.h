#pragma once
// train.patience: training ends once that many validations in a row have not lowered the best
// validation loss -- the rule checkpoint_best is kept by, so the run stops exactly `patience`
// validations after its checkpoint_best. The count lives in the trainer state (and so in every
// checkpoint): a run stopped and resumed, or a data-parallel rank that never writes, stops at
// the same update as one uninterrupted process. Torch-free.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

namespace fathom {

struct ValidationRecord {
  double best_loss = INFINITY;         // the lowest validation loss so far
  int64_t best_update = 0;             // the update it was measured at (0: none yet)
  int64_t validations_since_best = 0;  // validations since then that did not lower it
};

// Counts a validation at `update`; true when its loss is a new best (strictly lower: a NaN
// loss, a tie, is none).
inline bool record_validation(ValidationRecord& r, int64_t update, double loss) {
  if (loss < r.best_loss) {
    r.best_loss = loss;
    r.best_update = update;
    r.validations_since_best = 0;
    return true;
  }
  ++r.validations_since_best;
  return false;
}

// Whether train.patience (0: off) has run out.
inline bool patience_exhausted(const ValidationRecord& r, int patience) {
  return patience > 0 && r.validations_since_best >= patience;
}

// The run tag early_stop: "update 260: 3 validations since update 200 without a valid_loss
// below 1.2345 (train.patience 3, train.max_updates 1000)".
inline std::string early_stop_text(const ValidationRecord& r, int64_t update, int patience,
                                   int64_t max_updates) {
  char best[32];
  std::snprintf(best, sizeof best, "%.6g", r.best_loss);
  return "update " + std::to_string(update) + ": " + std::to_string(r.validations_since_best) +
         " validations since update " + std::to_string(r.best_update) +
         " without a valid_loss below " + best + " (train.patience " + std::to_string(patience) +
         ", train.max_updates " + std::to_string(max_updates) + ")";
}

}  // namespace fathom
