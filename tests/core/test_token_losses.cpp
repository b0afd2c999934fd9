// The loss's reduced-precision node (core/train/token_losses.h) against the formula of
// methods.md s1 worked in float64 from the same logits: values, the logits' gradient
// g_t (softmax(z_t) - eps / V - (1 - eps) onehot(y_t)), pads, float16's small probabilities,
// and the refusal to differentiate twice. On the CPU here; FATHOM_TEST_DEVICE=cuda on a GPU.
#include <gtest/gtest.h>

#include <cmath>

#include "core/model/higher_order_grad.h"
#include "core/train/loss.h"
#include "core/train/token_losses.h"
#include "tests/support/test_device.h"

namespace fathom {
namespace test_token_losses {

struct Case {
  torch::Tensor logits;  // [B, T, V] in the dtype under test, a leaf
  torch::Tensor target;  // [B, T], pads (0) at some positions
};

Case make_case(torch::ScalarType dtype, double spread, uint64_t seed) {
  torch::manual_seed(seed);
  const auto on = torch::TensorOptions().device(test_device());
  Case c;
  c.logits = (torch::randn({2, 5, 37}, on) * spread).to(dtype).requires_grad_(true);
  c.target = torch::randint(1, 37, {2, 5}, on.dtype(torch::kInt64));
  c.target.index_put_({0, 4}, 0);
  c.target.index_put_({1, 0}, 0);
  return c;
}

// The formula in float64 from the logits' own (rounded) values: [B, T] losses and
// [B, T, V] gradients for per-position weights g.
struct Expected {
  torch::Tensor smoothed, nll, grad;
};

Expected by_formula(const Case& c, const torch::Tensor& g, double eps) {
  const torch::Tensor z = c.logits.detach().to(torch::kFloat64).cpu();
  const torch::Tensor y = c.target.cpu();
  const int64_t V = z.size(-1);
  const torch::Tensor log_z = z.logsumexp(-1);  // [B, T]
  Expected e;
  e.nll = log_z - z.gather(-1, y.unsqueeze(-1)).squeeze(-1);
  // sum_v -log p_v = V log Z - sum_v z_v
  e.smoothed = (1 - eps) * e.nll + (eps / V) * (V * log_z - z.sum(-1));
  const torch::Tensor p = (z - log_z.unsqueeze(-1)).exp();
  const torch::Tensor onehot = torch::zeros_like(p).scatter_(-1, y.unsqueeze(-1), 1.0);
  e.grad = g.to(torch::kFloat64).cpu().unsqueeze(-1) * (p - eps / V - (1 - eps) * onehot);
  return e;
}

void expect_close(const torch::Tensor& got, const torch::Tensor& want, const torch::Tensor& bound,
                  const char* what) {
  const torch::Tensor a = got.detach().to(torch::kFloat64).cpu();
  EXPECT_LE(((a - want).abs() - bound).max().item<double>(), 0.0)
      << what << ": worst |got - want| " << (a - want).abs().max().item<double>();
}

void expect_close(const torch::Tensor& got, const torch::Tensor& want, double rel, double abs,
                  const char* what) {
  expect_close(got, want, rel * want.abs() + abs, what);
}

// What a gradient entry g (p - eps / V) - [target] g (1 - eps) may be off by when softmax(z)
// and the result are each rounded once to a format of unit roundoff u (and g once, in
// bfloat16): u g (p + eps / V) from the terms, u |result| from the last rounding, doubled.
torch::Tensor gradient_bound(const Case& c, const torch::Tensor& g, double eps,
                             const torch::Tensor& want, double u) {
  const torch::Tensor z = c.logits.detach().to(torch::kFloat64).cpu();
  const torch::Tensor p = torch::softmax(z, -1);
  const torch::Tensor gg = g.to(torch::kFloat64).cpu().unsqueeze(-1);
  return 2 * u * (gg * (p + eps / z.size(-1)) + want.abs());
}

// bfloat16 logits: the losses equal the float64 formula to float32's digits (the statistics
// are float32), the gradient to bfloat16's rounding; a weight of 0 (a pad) gives a zero row.
// Fails if eps is spread over V - 1 entries, the one-hot part is left out or scattered at the
// wrong index, or g does not scale every entry.
TEST(TokenLosses, BFloat16NodeFollowsTheFormula) {
  for (const double eps : {0.0, 0.1}) {
    const Case c = make_case(torch::kBFloat16, 3.0, 11);
    const TokenLosses got = token_losses(c.logits, c.target, eps);
    ASSERT_TRUE(got.smoothed.requires_grad());
    EXPECT_FALSE(got.nll.requires_grad());
    const torch::Tensor g = torch::rand({2, 5}, got.smoothed.options()) * c.target.ne(0);
    (got.smoothed * g).sum().backward();
    const Expected want = by_formula(c, g, eps);
    expect_close(got.smoothed, want.smoothed, 1e-5, 1e-5, "smoothed");
    expect_close(got.nll, want.nll, 1e-5, 1e-5, "nll");
    ASSERT_EQ(c.logits.grad().scalar_type(), torch::kBFloat16);
    expect_close(c.logits.grad(), want.grad,
                 gradient_bound(c, g, eps, want.grad, std::ldexp(1.0, -8)), "gradient");
    EXPECT_EQ(c.logits.grad()[0][4].abs().sum().item<double>(), 0.0) << "a pad's row";
  }
}

// The node and the plain autograd formula give the same losses and gradients, through
// label_smoothed_loss's pad masking and sum, as a training step uses them.
TEST(TokenLosses, LabelSmoothedLossInBFloat16MatchesTheAutogradFormula) {
  const Case c = make_case(torch::kBFloat16, 2.0, 12);
  const LossSums sums = label_smoothed_loss(c.logits, c.target, 0.1);
  sums.smoothed.backward();
  const torch::Tensor by_node = c.logits.grad().clone();
  c.logits.mutable_grad().reset();
  const TokenLosses plain = token_losses_by_autograd(c.logits, c.target, 0.1);
  plain.smoothed.masked_fill(c.target.eq(0), 0).sum().backward();
  const torch::Tensor by_autograd = c.logits.grad().to(torch::kFloat64).cpu();
  const torch::Tensor g = c.target.ne(0).to(torch::kFloat32);
  expect_close(by_node, by_autograd, gradient_bound(c, g, 0.1, by_autograd, std::ldexp(1.0, -8)),
               "gradient");
  EXPECT_NEAR(sums.smoothed.item<double>(),
              plain.smoothed.masked_fill(c.target.eq(0), 0).sum().item<double>(), 1e-4);
  EXPECT_EQ(sums.tokens, 8);
}

// float16: a peaked softmax leaves most probabilities far under float16's least normal
// number (6.1e-5); the loss scaler's large g must scale them before they are rounded, or
// they come back as subnormals with a few bits, or zero. Fails if the probabilities are
// written in float16 first.
TEST(TokenLosses, Float16KeepsSmallProbabilitiesUnderALargeScale) {
  const Case c = make_case(torch::kHalf, 6.0, 13);
  const TokenLosses got = token_losses(c.logits, c.target, 0.0);
  const torch::Tensor g = torch::full({2, 5}, 4096.0, got.smoothed.options()) * c.target.ne(0);
  (got.smoothed * g).sum().backward();
  const Expected want = by_formula(c, g, 0.0);
  const torch::Tensor small = want.grad.abs().lt(4096 * 6.1e-5) & want.grad.ne(0);
  ASSERT_GT(small.sum().item<int64_t>(), 20) << "the case must hold small probabilities";
  // float16's unit roundoff 2^-11 on every entry, and its subnormal spacing 6e-8 at most.
  expect_close(c.logits.grad(), want.grad, std::ldexp(1.0, -10), 6e-8, "gradient");
}

// Second derivatives go through autograd's formula (inside a HigherOrderGradScope, or in
// float32); the reduced-precision node refuses one rather than return a first derivative
// that autograd would treat as constant.
TEST(TokenLosses, ReducedPrecisionRefusesASecondDerivative) {
  const Case c = make_case(torch::kBFloat16, 1.0, 14);
  const TokenLosses got = token_losses(c.logits, c.target, 0.1);
  EXPECT_THROW(torch::autograd::grad({got.smoothed.sum()}, {c.logits}, {}, true, true), c10::Error);
  // Inside a HigherOrderGradScope (as core/train/hessian.h takes its products) bfloat16 takes
  // autograd's formula, which differentiates twice.
  {
    const HigherOrderGradScope exact;
    const Case h = make_case(torch::kBFloat16, 1.0, 14);
    const TokenLosses scoped = token_losses(h.logits, h.target, 0.1);
    const torch::Tensor grad =
        torch::autograd::grad({scoped.smoothed.sum()}, {h.logits}, {}, true, true)[0];
    EXPECT_TRUE(grad.requires_grad());
  }
  // float32 differentiates twice: the gradient's own gradient exists.
  const Case f = make_case(torch::kFloat32, 1.0, 14);
  const TokenLosses plain = token_losses(f.logits, f.target, 0.1);
  const torch::Tensor grad =
      torch::autograd::grad({plain.smoothed.sum()}, {f.logits}, {}, true, true)[0];
  EXPECT_TRUE(grad.requires_grad());
}

}  // namespace test_token_losses
}  // namespace fathom
