#pragma once
// train.valid_at: the budgets a run validates just inside, so that a comparison at that budget
// (`--at compute=3e14`, experiments/value_at_budget.h) reads each run where it had spent it
// rather than at its validation before -- with validations every K updates a 3x dearer model is
// otherwise read up to K of its updates, a third of its budget, early.
//
// Whether the update just done is the last inside a budget depends on the next one's cost,
// which is not known before its batches are read. The next update's cost is taken as the
// dearest one so far in this session: a reading after update u where
//   x(u) <= budget < x(u) + max cost of the updates so far,
// x the run's position on the budget's axis after u (train_flops, target tokens, or u itself).
// Updates cost alike up to their batches' lengths, so this reads at the last update inside the
// budget, and at most a few before it; only a next update dearer than every one before can pass
// the budget unread (the table then reads the update before it, and says how short).
// train.valid_every_flops F is the same rule for the budgets F, 2F, 3F, ...: after update u
// where some multiple kF (k >= 1) has x(u) <= kF < x(u) + the dearest update so far.
#include <cstdint>
#include <string>
#include <vector>

#include "base/config/budget_text.h"

namespace fathom {

class BudgetReadings {
 public:
  // train.valid_at's texts, already checked (check_config), and train.valid_every_flops: a
  // budget at every multiple of it (0: none).
  explicit BudgetReadings(const std::vector<std::string>& valid_at, double every_flops = 0);

  // After update `update`, which cost `tokens` target tokens and `flops` training FLOPs and
  // brought the run to `tokens_after` and `flops_after` (NaN: a run resumed from a checkpoint
  // that did not count its compute has no compute budget): whether to validate now. Called once
  // per update, in order (it keeps the dearest costs so far).
  bool due(int64_t update, double tokens, double flops, double tokens_after, double flops_after);

  bool empty() const { return budgets_.empty() && every_flops_ <= 0; }

 private:
  std::vector<BudgetText> budgets_;
  double every_flops_ = 0;
  double most_tokens_ = 0, most_flops_ = 0;
};

}  // namespace fathom
