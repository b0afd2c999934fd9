#pragma once
// Hyper-connections (model.connection: hyper | mhc, model.hc_streams: n; methods.md s4.1):
// the residual stream widened to n streams H = [h_1 .. h_n] that each sub-layer reads, mixes
// and writes with learned weights (Zhu et al. 2024, arXiv 2409.19606, s2):
//   h_in  = sum_j a_j h_j                         (width connection: what the sub-layer reads)
//   h'_i  = sum_j M_ij h_j + b_i drop(f(LN(h_in))) (residual mixing M, depth connection b)
// `hyper`: a = A_m + s_a tanh(LN(H) W_m), M^T = A_r + s_a tanh(LN(H) W_r),
//          b = B + s_b tanh(LN(H) W_b), W = 0 at initialization, A_m the one-hot
//          e_(k mod n) of sub-layer k, A_r = I, B = 1 (Zhu et al.); s = 0.01 (our choice).
// `mhc` (DeepSeek-AI 2025, "mHC: Manifold-Constrained Hyper-Connections", arXiv 2512.24880):
//          the same maps constrained,
//          a = sigmoid(.), b = 2 sigmoid(.), M = Sinkhorn-Knopp(exp(.)), doubly stochastic,
//          over logits static + s * LN(H) W (no tanh); static logits 0 at initialization.
// The embedding is copied into the n streams before the first sub-layer; the stack's output is
// the streams' sum, then the final LayerNorm. The stacks are the residual ones
// (core/model/residual_connection.cpp) with this sub-layer connection in place of the style's.
#include <torch/torch.h>

#include <vector>

#include "core/model/mix_streams.h"
#include "core/model/sinkhorn.h"

namespace fathom {

// How a sweep gives hyper-connections their streams and other connections none: what both
// stream-count errors end with.
inline constexpr const char* kStreamsInASweep =
    "a sweep over connections pairs them in a zip: model.connection [residual, hyper], "
    "model.hc_streams [0, 4]";

// The gains the mHC paper bounds, of one mixing matrix P [.., n, n] (its composite over layers):
// forward, max_i sum_j |P_ij| (the largest factor a stream's value can grow by); backward,
// max_j sum_i |P_ij| (the same for a gradient flowing back). Each [..].
struct MixingGain {
  torch::Tensor forward, backward;
};
MixingGain mixing_gain(const torch::Tensor& composite);

// The composite mixing after each sub-layer k of a stack: P_k = M_k M_(k-1) .. M_1, and its
// gains, for the stack's mixing matrices in order.
std::vector<MixingGain> composite_mixing_gains(const std::vector<torch::Tensor>& mixings);

}  // namespace fathom
