#include "core/train/token_losses.h"

#include "core/model/higher_order_grad.h"

namespace fathom {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

bool reduced_precision(torch::ScalarType t) { return t == torch::kBFloat16 || t == torch::kHalf; }

// The forward's float32 log-probabilities live only inside it; the node keeps the logits
// themselves (half the bytes: autograd's formula keeps the float32 log-probabilities) and each
// target's probability. The backward recomputes softmax(z) from the logits in one kernel
// (float32 inside), writes g (p - eps / V) in one multiply-add, and writes each target's
// entry over it.
struct SmoothedLossFunction : torch::autograd::Function<SmoothedLossFunction> {
  static variable_list forward(AutogradContext* ctx, const torch::Tensor& logits,
                               const torch::Tensor& target, double epsilon) {
    const auto V = static_cast<double>(logits.size(-1));
    // Reduced-precision input, float32 statistics and output (float16 on CUDA in one kernel).
    const torch::Tensor log_probs = torch::log_softmax(logits, -1, torch::kFloat32);
    const torch::Tensor y = target.unsqueeze(-1);
    const torch::Tensor log_p_y = log_probs.gather(-1, y);  // [B, T, 1]
    torch::Tensor nll = -log_p_y.squeeze(-1);
    torch::Tensor smoothed = (1.0 - epsilon) * nll - (epsilon / V) * log_probs.sum(-1);
    ctx->save_for_backward({logits, y, log_p_y.exp()});
    ctx->saved_data["epsilon"] = epsilon;
    ctx->mark_non_differentiable({nll});
    return {smoothed, nll};
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    TORCH_CHECK(!torch::GradMode::is_enabled(),
                "the reduced-precision loss has no second derivative: differentiate twice inside "
                "a HigherOrderGradScope (core/model/higher_order_grad.h), or in float32");
    const variable_list saved = ctx->get_saved_variables();
    const torch::Tensor& logits = saved[0];
    const torch::Tensor& y = saved[1];    // [B, T, 1]
    const torch::Tensor& p_y = saved[2];  // [B, T, 1], float32
    const double epsilon = ctx->saved_data["epsilon"].toDouble();
    const auto dtype = logits.scalar_type();
    const auto V = static_cast<double>(logits.size(-1));
    const torch::Tensor g = grads[0].to(torch::kFloat32).unsqueeze(-1);  // [B, T, 1]
    // Every op below takes and gives one dtype: LibTorch's CPU kernels refuse mixed ones.
    // bfloat16 (float32's exponent range): softmax(z) computed in float32 and written once in
    // bfloat16, then g p - g eps / V in one multiply-add computed in float32 and rounded once;
    // g itself is rounded to bfloat16 there (a row's gradient scaled by 1 + O(2^-9),
    // bfloat16's own rounding). float16 would flush probabilities under 6e-5 to subnormals
    // before g scales them, so its softmax and multiply-add stay float32, rounded after.
    const bool bf16 = dtype == torch::kBFloat16;
    const torch::Tensor probs =
        bf16 ? torch::softmax(logits, -1) : torch::softmax(logits, -1, torch::kFloat32);
    const torch::Tensor g_work = g.to(probs.scalar_type());
    torch::Tensor grad = torch::addcmul(g_work * (-epsilon / V), probs, g_work).to(dtype);
    // The target's entry g (p_y - eps / V - (1 - eps)) cancels as p_y nears 1: computed in
    // float32 and written over, not added to the rounded g p_y (which would leave an error
    // of 2^-9 g where the result is ~0).
    grad.scatter_(-1, y, (g * (p_y - (epsilon / V + 1.0 - epsilon))).to(dtype));
    return {grad, torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

TokenLosses token_losses_by_autograd(const torch::Tensor& logits, const torch::Tensor& target,
                                     double epsilon) {
  const auto V = static_cast<double>(logits.size(-1));
  const auto dtype = logits.scalar_type() == torch::kDouble ? torch::kDouble : torch::kFloat32;
  const torch::Tensor log_probs = torch::log_softmax(logits.to(dtype), -1);
  TokenLosses out;
  out.nll = -log_probs.gather(-1, target.unsqueeze(-1)).squeeze(-1);
  out.smoothed = (1.0 - epsilon) * out.nll + (epsilon / V) * -log_probs.sum(-1);
  return out;
}

TokenLosses token_losses(const torch::Tensor& logits, const torch::Tensor& target, double epsilon) {
  // Inside a HigherOrderGradScope (Hessian-vector products) autograd's formula, which can
  // be differentiated twice, as every kernel with a backward of its own does.
  if (!reduced_precision(logits.scalar_type()) || higher_order_grad_needed())
    return token_losses_by_autograd(logits, target, epsilon);
  const variable_list out = SmoothedLossFunction::apply(logits, target, epsilon);
  return TokenLosses{out[0], out[1]};
}

}  // namespace fathom
