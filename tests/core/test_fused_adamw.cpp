// The fused AdamW path (core/train/fused_adamw.h): where LibTorch has the kernel (2.4+), Adam's
// and RAdam's adaptive updates take it and must move every parameter as the foreach ops do
// (float rounding apart); the call itself must follow the formula its header states, worked
// here in double precision; tensors the kernel cannot take go the foreach way. On LibTorch
// 1.13 the kernel is absent: the comparisons say SKIPPED (Optimizer.* in
// test_training_parts.cpp cover the foreach path there); scripts/trixie/build-test.sh runs
// them on 2.6, FATHOM_TEST_DEVICE=cuda on a GPU.
#include <gtest/gtest.h>
#include <torch/version.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "core/train/fused_adamw.h"
#include "core/train/optimizer.h"
#include "tests/support/test_device.h"

namespace fathom {
namespace test_fused_adamw {

#define SKIP_WITHOUT_THE_KERNEL()                               \
  if (!fused_adamw_available())                                 \
  GTEST_SKIP() << "LibTorch " TORCH_VERSION                     \
                  " has no fused AdamW kernel (2.4 or later); " \
                  "scripts/trixie/build-test.sh cpu runs this on 2.6"

TrainConfig adam_config(const std::string& optimizer, double weight_decay) {
  TrainConfig c;
  c.optimizer = optimizer;
  c.betas = {0.9, 0.98};
  c.eps = 1e-6;  // visible next to sqrt(v) at these gradient sizes
  c.weight_decay = weight_decay;
  return c;
}

// Tensors of a small model's shapes (matrices, vectors, a scalar) in two groups with their own
// learning-rate and epsilon factors, as model.parameterization makes them.
std::vector<ParameterGroup> two_groups(uint64_t seed) {
  torch::manual_seed(seed);
  const auto options = torch::TensorOptions().device(test_device());
  auto param = [&](std::vector<int64_t> shape) {
    return torch::randn(shape, options).requires_grad_(true);
  };
  return {{"encoder", 0.5, 2.0, {{"w1", param({8, 6})}, {"b1", param({8})}, {"w2", param({6, 8})}}},
          {"outside", 1.0, 1.0, {{"embedding", param({11, 6})}, {"gain", param({})}}}};
}

std::vector<torch::Tensor> tensors_of(const std::vector<ParameterGroup>& groups) {
  std::vector<torch::Tensor> out;
  for (const auto& g : groups)
    for (const auto& [name, p] : g.parameters) out.push_back(p);
  return out;
}

// Eight steps of `optimizer` (RAdam: five un-adapted, then three adaptive) over the same
// gradients, fused and foreach side by side: every parameter within float rounding after every
// step; the fused optimizer takes the kernel exactly on the adaptive steps.
void expect_fused_follows_foreach(const std::string& optimizer) {
  SCOPED_TRACE(optimizer);
  const std::vector<ParameterGroup> fused_groups = two_groups(7), foreach_groups = two_groups(7);
  const TrainConfig config = adam_config(optimizer, 0.1);
  Optimizer fused(fused_groups, config), foreach_ops(foreach_groups, config);
  fused.use_fused_adamw(true);
  foreach_ops.use_fused_adamw(false);
  const std::vector<torch::Tensor> a = tensors_of(fused_groups), b = tensors_of(foreach_groups);
  torch::manual_seed(11);
  for (int step = 1; step <= 8; ++step) {
    for (size_t i = 0; i < a.size(); ++i) {
      const torch::Tensor g = torch::randn_like(a[i]);
      a[i].mutable_grad() = g.clone();
      b[i].mutable_grad() = g.clone();
    }
    fused.step(0.01);
    foreach_ops.step(0.01);
    const bool adaptive = optimizer == "adam" || step >= 6;  // rho_6 > 5 with beta2 = 0.98
    EXPECT_EQ(fused.last_step_fused(), adaptive) << "step " << step;
    EXPECT_FALSE(foreach_ops.last_step_fused()) << "step " << step;
    for (size_t i = 0; i < a.size(); ++i) {
      const double moved = (a[i] - b[i]).abs().max().item<double>();
      EXPECT_LT(moved, 1e-6) << "tensor " << i << ", step " << step;
    }
  }
  // The updates were real: every tensor moved from where it started.
  const std::vector<torch::Tensor> start = tensors_of(two_groups(7));
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_GT((a[i] - start[i]).abs().max().item<double>(), 1e-3) << "tensor " << i;
}

TEST(FusedAdamW, AdamTakesTheKernelAndMovesAsTheForeachOps) {
  SKIP_WITHOUT_THE_KERNEL();
  expect_fused_follows_foreach("adam");
}

// RAdam's rectified step goes through the kernel at lr * r_t with the decay divided by r_t: a
// wrong rescaling of either is far outside float rounding after three adaptive steps.
TEST(FusedAdamW, RAdamTakesTheKernelOnlyOnceAdaptive) {
  SKIP_WITHOUT_THE_KERNEL();
  expect_fused_follows_foreach("radam");
}

// The call against its header's formula, worked element by element in double precision from
// non-zero moments at step 3 (bias corrections well away from 1).
TEST(FusedAdamW, TheCallFollowsItsFormula) {
  SKIP_WITHOUT_THE_KERNEL();
  const auto options = torch::TensorOptions().dtype(torch::kFloat64).device(test_device());
  const std::vector<double> p0{0.5, -1.0, 2.0}, g0{0.3, -0.2, 1.5}, m0{0.1, 0.05, -0.2},
      v0{0.02, 0.01, 0.3};
  std::vector<torch::Tensor> params{torch::tensor(p0, options)}, grads{torch::tensor(g0, options)},
      exp_avgs{torch::tensor(m0, options)}, exp_avg_sqs{torch::tensor(v0, options)};
  const double lr = 0.05, b1 = 0.9, b2 = 0.98, wd = 0.1, eps = 1e-3;
  const int step = 3;
  fused_adamw_step(params, grads, exp_avgs, exp_avg_sqs, step, lr, b1, b2, wd, eps);
  const torch::Tensor p = params[0].cpu(), m = exp_avgs[0].cpu(), v = exp_avg_sqs[0].cpu();
  for (int i = 0; i < 3; ++i) {
    const double expect_m = b1 * m0[i] + (1 - b1) * g0[i];
    const double expect_v = b2 * v0[i] + (1 - b2) * g0[i] * g0[i];
    const double bc1 = 1 - std::pow(b1, step), bc2 = 1 - std::pow(b2, step);
    const double expect_p =
        p0[i] * (1 - lr * wd) - lr / bc1 * expect_m / (std::sqrt(expect_v / bc2) + eps);
    EXPECT_NEAR(m[i].item<double>(), expect_m, 1e-12) << i;
    EXPECT_NEAR(v[i].item<double>(), expect_v, 1e-12) << i;
    EXPECT_NEAR(p[i].item<double>(), expect_p, 1e-12) << i;
  }
}

// What one fused call cannot take (mixed dtypes or devices, non-floating, non-contiguous)
// is refused by fused_adamw_accepts, so the optimizer keeps the foreach ops for it; a
// parameter list of float tensors is accepted. Holds on every LibTorch (no kernel needed).
TEST(FusedAdamW, TensorsOneCallCannotTakeAreRefused) {
  const torch::Tensor f = torch::zeros({4, 3}), d = torch::zeros({4, 3}, torch::kFloat64);
  EXPECT_TRUE(fused_adamw_accepts({f, f}, {f, f}));
  EXPECT_FALSE(fused_adamw_accepts({}, {}));
  EXPECT_FALSE(fused_adamw_accepts({f, d}, {f, d})) << "mixed dtypes";
  EXPECT_FALSE(fused_adamw_accepts({f}, {d})) << "a gradient of another dtype";
  EXPECT_FALSE(fused_adamw_accepts({f.t()}, {f.t()})) << "non-contiguous";
  const torch::Tensor i = torch::zeros({4}, torch::kInt64);
  EXPECT_FALSE(fused_adamw_accepts({i}, {i})) << "integer";
  EXPECT_FALSE(fused_adamw_accepts({f, f}, {f})) << "lists of different lengths";
}

// By default an optimizer takes the kernel wherever LibTorch has it, on the CPU as on CUDA;
// use_fused_adamw(false) keeps the foreach ops.
TEST(FusedAdamW, TheKernelIsTheDefaultWhereLibTorchHasIt) {
  for (const bool turned_off : {false, true}) {
    torch::Tensor p = torch::tensor({1.0f, -2.0f}, torch::TensorOptions().device(test_device()))
                          .requires_grad_(true);
    Optimizer optimizer({{"p", p}}, adam_config("adam", 0.0));
    if (turned_off) optimizer.use_fused_adamw(false);
    p.mutable_grad() = torch::ones_like(p);
    optimizer.step(0.1);
    EXPECT_EQ(optimizer.last_step_fused(), fused_adamw_available() && !turned_off) << turned_off;
    // Adam's first step either way: -lr sign(g).
    EXPECT_NEAR(p[0].item<double>(), 0.9, 1e-5);
  }
}

// Where the kernel is absent the optimizer never claims it, and a mixed-dtype group goes the
// foreach way everywhere while still taking Adam's first step, -lr sign(g).
TEST(FusedAdamW, AGroupTheKernelCannotTakeStillSteps) {
  torch::Tensor f = torch::tensor({1.0f, -2.0f}).requires_grad_(true);
  torch::Tensor d = torch::tensor({3.0}, torch::kFloat64).requires_grad_(true);
  Optimizer optimizer({{"f", f}, {"d", d}}, adam_config("adam", 0.0));
  f.mutable_grad() = torch::tensor({0.5f, -0.25f});
  d.mutable_grad() = torch::tensor({-4.0}, torch::kFloat64);
  optimizer.step(0.1);
  EXPECT_FALSE(optimizer.last_step_fused());
  EXPECT_NEAR(f[0].item<double>(), 0.9, 1e-5);
  EXPECT_NEAR(f[1].item<double>(), -1.9, 1e-5);
  EXPECT_NEAR(d[0].item<double>(), 3.1, 1e-5);
}

}  // namespace test_fused_adamw
}  // namespace fathom
