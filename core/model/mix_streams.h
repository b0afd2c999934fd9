#pragma once
// The stream operations of hyper-connections (core/model/hyper_connection.h), per token: the
// read of the n streams and their mixing with the sub-layer's write.
#include <torch/torch.h>

namespace fathom {

// sum_j read_j h_j: `read` [.., n], `streams` [.., n, d] -> [.., d].
torch::Tensor read_streams(const torch::Tensor& read, const torch::Tensor& streams);

// new_i = sum_j mix_ij h_j + write_i branch: `mix` [.., n, n], `streams` [.., n, d], `write`
// [.., n], `branch` [.., d] -> [.., n, d].
//
// Both, on a CPU in float or double: one loop over the tokens forward and backward (one autograd
// node each). LibTorch 1.13 ran the per-token matmul as one small GEMM per token, each sliced out
// with select: about 4 us a token whatever d, 21 ms a sub-layer at 4,096 tokens against 2 ms
// here (bench_train lm-tiny/lm-small pre:hyper); and the read and the write as tensor
// operations each made and read back [.., n, d] temporaries, forward and backward. Elsewhere (a
// GPU, bf16, a HigherOrderGradScope) the tensor operations.
torch::Tensor mix_streams(const torch::Tensor& mix, const torch::Tensor& streams,
                          const torch::Tensor& write, const torch::Tensor& branch);

}  // namespace fathom
