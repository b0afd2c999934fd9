#pragma once
// The auxiliary z-loss (Chowdhery et al. 2022, PaLM, s5; Wortsman et al. 2023, arXiv
// 2309.14322, s3.2): z * (log Z)^2 per target token, log Z = logsumexp of the output logits.
// It pulls log Z toward 0, so the output logits cannot drift upward together -- the
// output-logit divergence that ends runs at large learning rates. `train.z_loss: 1e-4`. The
// logged training loss stays the cross entropy; the z term only joins the gradient.
#include <torch/torch.h>

namespace fathom {

// sum over non-pad target positions of (log Z)^2 (a scalar; pad = 0). logits [B, T, V].
torch::Tensor z_loss_sum(const torch::Tensor& logits, const torch::Tensor& target);

}  // namespace fathom
