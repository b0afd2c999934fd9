#pragma once
// Sinkhorn-Knopp for mhc's residual mixing (core/model/hyper_connection.h; DeepSeek-AI 2025,
// arXiv 2512.24880): exp(logits) over the last two dims [.., n, n], then `iterations` rounds
// of dividing each row by its sum and then each column by its sum -- every column sums to 1
// exactly, every row to 1 within the iterations' convergence (doubly stochastic in the limit).
#include <torch/torch.h>

namespace fathom {

// Sinkhorn-Knopp iterations of mhc (the mHC paper's t_max).
constexpr int kSinkhornIterations = 20;

// On a CPU in float or double: one loop per matrix, forward and backward (one autograd node;
// as tensor ops a sub-layer's 20 iterations were 80 tiny operations forward and 160 backward,
// most of mhc's cost over hyper). Elsewhere (a GPU, bf16) sinkhorn_knopp_ops.
torch::Tensor sinkhorn_knopp(const torch::Tensor& logits, int iterations = kSinkhornIterations);

// The same as tensor operations, differentiated by autograd through every iteration: any
// device and dtype, and the reference the fused path is tested against.
torch::Tensor sinkhorn_knopp_ops(const torch::Tensor& logits, int iterations = kSinkhornIterations);

}  // namespace fathom
