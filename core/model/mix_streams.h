#pragma once
// The residual mixing of hyper-connections (core/model/hyper_connection.h): for each token,
// new_i = sum_j M_ij old_j, `mix` [.., n, n] applied to `streams` [.., n, d].
#include <torch/torch.h>

namespace fathom {

// On a CPU in float or double: one loop over the tokens, forward and backward (one autograd
// node). LibTorch 1.13 runs the per-token matmul as one small GEMM per token, each sliced out
// with select: about 4 us a token whatever d, 21 ms a sub-layer at 4,096 tokens against 2 ms
// here (bench_train lm-tiny/lm-small pre:hyper). Elsewhere (a GPU, bf16) a matmul.
torch::Tensor mix_streams(const torch::Tensor& mix, const torch::Tensor& streams);

}  // namespace fathom
