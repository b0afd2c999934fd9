#pragma once
// checkpoint_best and train.patience follow one validation metric, train.best_metric: the
// validation loss (lower is better; the default) or valid_bleu (higher is better). Training ends
// once `patience` validations in a row have not bettered it -- the rule checkpoint_best is kept
// by, so the run stops exactly `patience` validations after its checkpoint_best (with
// train.patience_min_delta, after its last improvement by more than that). The count lives in
// the trainer state (and so in every checkpoint): a run stopped and resumed, or a data-parallel
// rank that never writes, stops at the same update as one uninterrupted process. Torch-free.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "db/metric_names.h"
#include "db/metric_presentation.h"

namespace fathom {

// The validation metric a run's checkpoint_best and early stop follow (train.best_metric).
struct BestMetric {
  std::string name = db::metric::kValidLoss;
  bool higher_is_better = false;
};

// valid_loss or valid_bleu, which way is better as every view presents it; anything else throws
// std::invalid_argument (the config refuses it first).
inline BestMetric best_metric_named(const std::string& name) {
  if (name != db::metric::kValidLoss && name != db::metric::kValidBleu)
    throw std::invalid_argument("no best metric named '" + name + "' (valid_loss or valid_bleu)");
  return {name, db::metric::higher_is_better(name).value_or(false)};
}

struct ValidationRecord {
  double best = INFINITY;   // the best value so far (checkpoint_best's), in the metric's units
  int64_t best_update = 0;  // the update it was measured at (0: none yet)
  // train.patience counts from the last improvement: a value better than the previous
  // improvement's by more than train.patience_min_delta. With a min_delta of 0 that is the best.
  double improved = INFINITY;
  int64_t improved_update = 0;
  int64_t validations_since_best = 0;  // validations since that improvement
};

// Whether `value` betters `reference` (measured at `reference_update`; 0: there is none) by
// more than `margin`. The first finite value betters nothing; a NaN, a tie, never does.
inline bool betters(const BestMetric& metric, double value, double reference,
                    int64_t reference_update, double margin) {
  if (reference_update == 0) return std::isfinite(value);
  return metric.higher_is_better ? value > reference + margin : value < reference - margin;
}

// Counts a validation at `update` whose `metric` is `value`; true when it is a new best
// (strictly better). An improvement for patience must better the last improvement by more than
// `min_delta` (the metric's units): a creep below the metric's noise is none.
inline bool record_validation(ValidationRecord& r, int64_t update, double value,
                              double min_delta = 0, const BestMetric& metric = {}) {
  if (betters(metric, value, r.improved, r.improved_update, min_delta)) {
    r.improved = value;
    r.improved_update = update;
    r.validations_since_best = 0;
  } else {
    ++r.validations_since_best;
  }
  if (!betters(metric, value, r.best, r.best_update, 0)) return false;
  r.best = value;
  r.best_update = update;
  return true;
}

// Whether train.patience (0: off) has run out.
inline bool patience_exhausted(const ValidationRecord& r, int patience) {
  return patience > 0 && r.validations_since_best >= patience;
}

// The run tag early_stop: "update 260: 3 validations since update 200 without a valid_loss
// below 1.2345 (train.patience 3, train.max_updates 1000)"; with a min_delta, "below 1.2345 -
// 0.001 (train.patience 3, train.patience_min_delta 0.001, ...)"; on valid_bleu, "without a
// valid_bleu above 27.1 + 0.5 (train.best_metric valid_bleu, train.patience 3, ...)".
inline std::string early_stop_text(const ValidationRecord& r, int64_t update, int patience,
                                   int64_t max_updates, double min_delta = 0,
                                   const BestMetric& metric = {}) {
  char reference[32], delta[32];
  std::snprintf(reference, sizeof reference, "%.6g", r.improved);
  std::snprintf(delta, sizeof delta, "%g", min_delta);
  const std::string by =
      min_delta > 0 ? std::string(metric.higher_is_better ? " + " : " - ") + delta : "";
  const std::string min_delta_key =
      min_delta > 0 ? std::string(", train.patience_min_delta ") + delta : "";
  const std::string metric_key =
      metric.name == BestMetric{}.name ? "" : "train.best_metric " + metric.name + ", ";
  return "update " + std::to_string(update) + ": " + std::to_string(r.validations_since_best) +
         " validations since update " + std::to_string(r.improved_update) + " without a " +
         metric.name + (metric.higher_is_better ? " above " : " below ") + reference + by + " (" +
         metric_key + "train.patience " + std::to_string(patience) + min_delta_key +
         ", train.max_updates " + std::to_string(max_updates) + ")";
}

}  // namespace fathom
