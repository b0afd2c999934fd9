#pragma once
// Global L2 gradient-norm clipping that leaves the norm on the device. LibTorch's
// torch::nn::utils::clip_grad_norm_ returns a host double, i.e. waits for the device on every
// update; this computes the same quantities in the same order (per-gradient 2-norms, the norm
// of their stack, coefficient max_norm / (norm + 1e-6) clamped at 1; PyTorch's
// torch.nn.utils.clip_grad_norm_), so the values are bit-identical, without the read.
#include <torch/torch.h>

#include <vector>

namespace fathom {

// Clips the parameters' gradients in place to global norm `max_norm` (infinity: no clipping,
// the gradients are left untouched) and returns the norm before clipping, a 0-dim tensor on
// the gradients' device (float32 for float32 gradients).
torch::Tensor clip_grad_norm_on_device(const std::vector<torch::Tensor>& parameters,
                                       double max_norm);

}  // namespace fathom
