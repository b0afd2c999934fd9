#pragma once
// Dropout for every layer of the model. On the CPU the keep mask is drawn in parallel from a
// counter-based generator -- SplitMix64 (Steele, Lea & Flood 2014) at the element's index,
// offset by one 64-bit draw from LibTorch's default generator -- where torch::dropout's
// bernoulli_ draws element by element on one thread (13 % of a tiny CPU step, docs/
// performance.md). The offset keeps LibTorch's generator in charge: torch::manual_seed, the
// trainer's per-update seeds, checkpoints and the checkpointed layers' replay repeat the masks,
// and the mask does not depend on the number of threads. Elsewhere (CUDA): torch::dropout.
#include <torch/torch.h>

namespace fathom {

// x with each element zeroed with probability p and the rest scaled by 1 / (1 - p) when
// training; x itself otherwise (or at p = 0).
torch::Tensor dropout(const torch::Tensor& x, double p, bool training);

// The multiplier alone: each element 0 with probability p, else 1 / (1 - p) (p >= 1: all 0),
// of `sizes` with `options`' dtype and device.
torch::Tensor dropout_keep_mask(at::IntArrayRef sizes, const torch::TensorOptions& options,
                                double p);

}  // namespace fathom
