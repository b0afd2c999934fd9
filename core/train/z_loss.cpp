#include "core/train/z_loss.h"

namespace fathom {

torch::Tensor z_loss_sum(const torch::Tensor& logits, const torch::Tensor& target) {
  // In float32 also under autocast, as the loss itself (float64 logits stay float64).
  const torch::Tensor log_z =  // [B, T]
      logits.to(logits.scalar_type() == torch::kDouble ? torch::kDouble : torch::kFloat)
          .logsumexp(-1);
  return log_z.square().masked_fill(target.eq(0), 0).sum();
}

}  // namespace fathom
