#pragma once
// Each target position's label-smoothed loss and NLL (methods.md s1):
//   smoothed_t = (1 - eps) * nll_t + (eps / V) * sum_v (-log p_v),  nll_t = -log p(y_t),
// with the softmax statistics in float32 (float64 logits stay float64).
//
// Logits in reduced precision (bfloat16, float16: a mixed-precision step) take one autograd
// node whose backward writes d smoothed_t / d z = g_t (softmax(z) - eps / V - (1 - eps) onehot)
// straight into the logits' dtype: softmax recomputed from the logits in one kernel, one
// multiply-add, the targets' entries written over. Autograd's formula (a float32 copy of the
// logits, its log-softmax, the gather's zeroed [B, T, V] gradient added to the sum's, the
// log-softmax backward, the cast back) makes ~4x the backward's traffic over the step's
// largest tensor -- at 8,192 tokens and a 32k vocabulary each float32 pass is 1 GB -- and keeps
// the float32 log-probabilities where the node keeps the logits (docs/gpu.md, "The loss over
// the logits"). Float32 and float64 logits, and any inside a HigherOrderGradScope
// (core/model/higher_order_grad.h), keep autograd's formula: the Hessian-vector products
// (core/train/hessian.h) differentiate it twice.
#include <torch/torch.h>

namespace fathom {

struct TokenLosses {
  torch::Tensor smoothed;  // [B, T], differentiable
  torch::Tensor nll;       // [B, T], not differentiable
};

// logits [B, T, V], target [B, T]. Pads are not masked here (label_smoothed_loss does).
TokenLosses token_losses(const torch::Tensor& logits, const torch::Tensor& target, double epsilon);

// The plain autograd formula at any precision: float32 and float64 logits' path, and the
// reference that the reduced-precision node is tested and benchmarked against.
TokenLosses token_losses_by_autograd(const torch::Tensor& logits, const torch::Tensor& target,
                                     double epsilon);

}  // namespace fathom
