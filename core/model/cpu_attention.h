#pragma once
// Scaled dot-product attention on the CPU in one loop per (row, head), forward and backward
// (one autograd node): softmax(q k^T / sqrt(d_head) + masks) v, the function of the explicit
// path in core/model/attention.cpp. LibTorch 1.13's CPU `bmm` multiplies the B x H small
// matrices one at a time, each sliced out with `select` -- most of a tiny model's step
// (docs/performance.md, "Attention on the CPU").
#include <torch/torch.h>

namespace fathom {

// Whether attention_on_cpu takes these: CPU tensors in float or double.
bool attention_on_cpu_applies(const torch::Tensor& q);

// q [B, H, T, d_head], k and v [B, H, S, d_head] (any strides; views of the projections as the
// attention module makes them); key_padding_mask [B, S] bool, true at padding, or undefined;
// causal hides key j > i from query i. With dropout > 0 and `training`, the probabilities are
// dropped as fathom::dropout drops them on the explicit path (core/model/dropout.h), the same
// numbers from the same draw of the default generator. A query row whose keys are all masked gets
// zeros (the explicit path: NaN). Returns the heads' outputs side by side, [B, T, H * d_head].
torch::Tensor attention_on_cpu(const torch::Tensor& q, const torch::Tensor& k,
                               const torch::Tensor& v, const torch::Tensor& key_padding_mask,
                               bool causal, double dropout, bool training);

}  // namespace fathom
