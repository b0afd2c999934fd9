#include "core/train/token_losses.h"

namespace fathom {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

bool reduced_precision(torch::ScalarType t) { return t == torch::kBFloat16 || t == torch::kHalf; }

// The forward saves the float32 log-probabilities, as log_softmax's own node does, and no
// float32 copy of the logits; the backward makes the logits' gradient in two passes over
// [B, T, V] in bfloat16 (exp, one multiply-add) and writes the targets' entries alone.
struct SmoothedLossFunction : torch::autograd::Function<SmoothedLossFunction> {
  static variable_list forward(AutogradContext* ctx, const torch::Tensor& logits,
                               const torch::Tensor& target, double epsilon) {
    const auto V = static_cast<double>(logits.size(-1));
    // With a dtype, log_softmax reads reduced-precision input and writes float32 (on CUDA in
    // one kernel); its statistics are float32's either way.
    const torch::Tensor log_probs = torch::log_softmax(logits, -1, torch::kFloat32);
    torch::Tensor nll = -log_probs.gather(-1, target.unsqueeze(-1)).squeeze(-1);
    torch::Tensor smoothed = (1.0 - epsilon) * nll - (epsilon / V) * log_probs.sum(-1);
    ctx->save_for_backward({log_probs, target});
    ctx->saved_data["epsilon"] = epsilon;
    ctx->saved_data["dtype"] = static_cast<int64_t>(logits.scalar_type());
    ctx->mark_non_differentiable({nll});
    return {smoothed, nll};
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    TORCH_CHECK(!torch::GradMode::is_enabled(),
                "the reduced-precision loss has no second derivative: differentiate twice in "
                "float32 (Hessian-vector products run without autocast)");
    const variable_list saved = ctx->get_saved_variables();
    const torch::Tensor& log_probs = saved[0];
    const torch::Tensor& target = saved[1];
    const double epsilon = ctx->saved_data["epsilon"].toDouble();
    const auto dtype = static_cast<torch::ScalarType>(ctx->saved_data["dtype"].toInt());
    const auto V = static_cast<double>(log_probs.size(-1));
    const torch::Tensor g = grads[0].to(torch::kFloat32).unsqueeze(-1);  // [B, T, 1]
    // Every op below takes and gives one dtype: LibTorch's CPU kernels refuse mixed ones.
    // bfloat16 (float32's exponent range): softmax(z) written once in bfloat16, then
    // g p - g eps / V in one multiply-add computed in float32 and rounded once; g itself is
    // rounded to bfloat16 there (a row's gradient scaled by 1 + O(2^-9), bfloat16's own
    // rounding). float16 would flush probabilities under 6e-5 to subnormals before g scales
    // them, so its multiply-add is done in float32 and rounded after.
    const torch::ScalarType work = dtype == torch::kBFloat16 ? dtype : torch::kFloat32;
    torch::Tensor probs = torch::empty(log_probs.sizes(), log_probs.options().dtype(work));
    torch::exp_out(probs, log_probs);
    const torch::Tensor g_work = g.to(work);
    torch::Tensor grad = torch::addcmul(g_work * (-epsilon / V), probs, g_work).to(dtype);
    // The target's entry g (p_y - eps / V - (1 - eps)) cancels as p_y nears 1: computed in
    // float32 and written over, not added to the rounded g p_y (which would leave an error
    // of 2^-9 g where the result is ~0).
    const torch::Tensor y = target.unsqueeze(-1);
    const torch::Tensor p_y = log_probs.gather(-1, y).exp();
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
  if (!reduced_precision(logits.scalar_type()))
    return token_losses_by_autograd(logits, target, epsilon);
  const variable_list out = SmoothedLossFunction::apply(logits, target, epsilon);
  return TokenLosses{out[0], out[1]};
}

}  // namespace fathom
