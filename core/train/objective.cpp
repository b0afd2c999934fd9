#include "core/train/objective.h"

#include "core/train/z_loss.h"

namespace fathom {

ObjectiveSums objective_sums(const torch::Tensor& logits, const torch::Tensor& target,
                             double label_smoothing, double z_loss, bool count_tokens) {
  ObjectiveSums out;
  out.loss = label_smoothed_loss(logits, target, label_smoothing, count_tokens);
  out.objective = out.loss.smoothed;
  if (z_loss > 0) out.objective = out.objective + z_loss * z_loss_sum(logits, target);
  return out;
}

}  // namespace fathom
