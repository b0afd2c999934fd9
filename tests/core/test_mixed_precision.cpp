// Mixed-precision pieces: the dynamic loss scaler (core/train/loss_scaler.h) on hand-made
// gradients, the autocast scope (core/model/autocast_scope.h), the precision plan's checks,
// and the device-side gradient clipping against LibTorch's clip_grad_norm_.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "base/config/config.h"
#include "base/util/error.h"
#include "core/model/autocast_scope.h"
#include "core/train/grad_clip.h"
#include "core/train/loss.h"
#include "core/train/loss_scaler.h"
#include "core/train/precision.h"

namespace fathom {
namespace test_mixed_precision {

torch::Tensor parameter_with_grad(std::vector<float> grad) {
  torch::Tensor p = torch::zeros({static_cast<int64_t>(grad.size())}, torch::requires_grad());
  p.mutable_grad() = torch::tensor(grad);
  return p;
}

TEST(LossScaler, StartsAtTwoToTheSixteenAndScalesTheLoss) {
  LossScaler scaler;
  EXPECT_EQ(scaler.scale_value(), 65536.0);
  EXPECT_EQ(scaler.scale(torch::tensor(0.5)).item<double>(), 32768.0);
}

TEST(LossScaler, UnscalesCleanGradientsExactly) {
  LossScaler scaler(1024.0);
  // Gradients of a loss scaled by 1024: dividing gives the true ones exactly (power of two).
  torch::Tensor a = parameter_with_grad({1024.0f * 0.1f, -1024.0f * 3.0f});
  torch::Tensor b = parameter_with_grad({1024.0f * 1e-6f});
  EXPECT_FALSE(scaler.unscale_and_find_non_finite({a, b}));
  EXPECT_EQ(a.grad()[0].item<float>(), 0.1f);
  EXPECT_EQ(a.grad()[1].item<float>(), -3.0f);
  EXPECT_EQ(b.grad()[0].item<float>(), 1e-6f);
}

TEST(LossScaler, FindsInfAndNanInAnyGradient) {
  const float inf = std::numeric_limits<float>::infinity();
  LossScaler scaler(8.0);
  torch::Tensor clean = parameter_with_grad({1.0f, 2.0f});
  EXPECT_TRUE(scaler.unscale_and_find_non_finite({clean, parameter_with_grad({0.0f, inf})}));
  EXPECT_TRUE(scaler.unscale_and_find_non_finite({parameter_with_grad({NAN}), clean}));
  EXPECT_TRUE(scaler.unscale_and_find_non_finite({parameter_with_grad({-inf})}));
  // A parameter without a gradient is ignored.
  torch::Tensor no_grad = torch::zeros({2}, torch::requires_grad());
  EXPECT_FALSE(scaler.unscale_and_find_non_finite({no_grad, parameter_with_grad({3.0f})}));
}

TEST(LossScaler, HalvesOnOverflowAndDoublesAfterTwoThousandCleanUpdates) {
  LossScaler scaler;
  scaler.update(/*found_non_finite=*/true);
  EXPECT_EQ(scaler.scale_value(), 32768.0);
  EXPECT_EQ(scaler.clean_updates(), 0);
  for (int i = 0; i < 1999; ++i) scaler.update(false);
  EXPECT_EQ(scaler.scale_value(), 32768.0);  // not yet
  EXPECT_EQ(scaler.clean_updates(), 1999);
  scaler.update(false);  // the 2000th clean update in a row
  EXPECT_EQ(scaler.scale_value(), 65536.0);
  EXPECT_EQ(scaler.clean_updates(), 0);
  // An overflow resets the run of clean updates.
  for (int i = 0; i < 1500; ++i) scaler.update(false);
  scaler.update(true);
  EXPECT_EQ(scaler.scale_value(), 32768.0);
  for (int i = 0; i < 1999; ++i) scaler.update(false);
  EXPECT_EQ(scaler.scale_value(), 32768.0);
  // Repeated overflows keep halving.
  scaler.update(true);
  scaler.update(true);
  EXPECT_EQ(scaler.scale_value(), 8192.0);
}

TEST(Autocast, Bf16ScopeCastsMatrixProductsAndRestoresOnExit) {
  const torch::Tensor a = torch::randn({4, 8});
  const torch::Tensor b = torch::randn({8, 3});
  const AutocastSetting before = active_autocast(c10::DeviceType::CPU);
  {
    AutocastScope scope({true, c10::DeviceType::CPU, at::kBFloat16});
    EXPECT_TRUE(active_autocast(c10::DeviceType::CPU).enabled);
    EXPECT_EQ(torch::matmul(a, b).scalar_type(), at::kBFloat16);
    // The loss takes reduced-precision logits and computes in float32.
    const torch::Tensor logits = torch::matmul(a, b).unsqueeze(0);
    const LossSums sums = label_smoothed_loss(logits, torch::tensor({{1, 2, 0, 1}}), 0.1);
    EXPECT_EQ(sums.smoothed.scalar_type(), at::kFloat);
  }
  EXPECT_EQ(active_autocast(c10::DeviceType::CPU).enabled, before.enabled);
  EXPECT_EQ(active_autocast(c10::DeviceType::CPU).dtype, before.dtype);
  EXPECT_EQ(torch::matmul(a, b).scalar_type(), at::kFloat);
  // A disabled scope (fp32) changes nothing.
  {
    AutocastScope scope({false, c10::DeviceType::CPU, at::kBFloat16});
    EXPECT_EQ(torch::matmul(a, b).scalar_type(), at::kFloat);
  }
}

TEST(Precision, PlansAndRefusesFp16OnTheCpu) {
  RunConfig config;
  config.train.precision = "fp32";
  EXPECT_FALSE(plan_precision(config, torch::kCPU).autocast.enabled);
  config.train.precision = "bf16";
  const PrecisionPlan bf16 = plan_precision(config, torch::kCPU);
  EXPECT_TRUE(bf16.autocast.enabled);
  EXPECT_EQ(bf16.autocast.dtype, at::kBFloat16);
  EXPECT_FALSE(bf16.loss_scaling);
  config.train.precision = "fp16";
  try {
    plan_precision(config, torch::kCPU);
    FAIL() << "fp16 on the CPU was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("train.precision"), std::string::npos) << e.what();
  }
  const PrecisionPlan fp16 = plan_precision(config, torch::Device(torch::kCUDA, 0));
  EXPECT_TRUE(fp16.loss_scaling);
  EXPECT_EQ(fp16.autocast.dtype, at::kHalf);
}

// tf32: no autocast and no scaler, the products' TF32 switch on -- on CUDA; the CPU refuses it
// naming the key.
TEST(Precision, Tf32PlansTensorCoreProductsOnCudaAndIsRefusedOnTheCpu) {
  RunConfig config;
  config.train.precision = "tf32";
  const PrecisionPlan tf32 = plan_precision(config, torch::Device(torch::kCUDA, 0));
  EXPECT_TRUE(tf32.tf32_products);
  EXPECT_FALSE(tf32.autocast.enabled);
  EXPECT_FALSE(tf32.loss_scaling);
  try {
    plan_precision(config, torch::kCPU);
    FAIL() << "tf32 on the CPU was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "train.precision");
  }
  config.train.precision = "bf16";
  EXPECT_FALSE(plan_precision(config, torch::Device(torch::kCUDA, 0)).tf32_products);
}

// The switches are LibTorch's, process-wide: a scope sets both to its plan's and puts back
// what it found, nested scopes too.
TEST(Precision, Tf32ScopeSetsTheSwitchesAndPutsBackWhatItFound) {
  auto& context = at::globalContext();
  const bool cublas = context.allowTF32CuBLAS(), cudnn = context.allowTF32CuDNN();
  context.setAllowTF32CuBLAS(false);
  context.setAllowTF32CuDNN(true);  // LibTorch's own default for cuDNN
  PrecisionPlan on, off;
  on.tf32_products = true;
  {
    Tf32Scope outer(on);
    EXPECT_TRUE(context.allowTF32CuBLAS());
    EXPECT_TRUE(context.allowTF32CuDNN());
    {
      Tf32Scope inner(off);
      EXPECT_FALSE(context.allowTF32CuBLAS());
      EXPECT_FALSE(context.allowTF32CuDNN());
    }
    EXPECT_TRUE(context.allowTF32CuBLAS());
    EXPECT_TRUE(context.allowTF32CuDNN());
  }
  EXPECT_FALSE(context.allowTF32CuBLAS());
  EXPECT_TRUE(context.allowTF32CuDNN());
  context.setAllowTF32CuBLAS(cublas);
  context.setAllowTF32CuDNN(cudnn);
}

// Only bf16 autocast on the CPU sends the matrix products to oneDNN (LibTorch's threads).
TEST(Precision, Bf16MatmulsOnTheCpuOnlyUnderCpuBf16Autocast) {
  RunConfig config;
  config.train.precision = "bf16";
  EXPECT_TRUE(bf16_matmuls_on_cpu(plan_precision(config, torch::kCPU).autocast));
  EXPECT_FALSE(
      bf16_matmuls_on_cpu(plan_precision(config, torch::Device(torch::kCUDA, 0)).autocast));
  config.train.precision = "fp32";
  EXPECT_FALSE(bf16_matmuls_on_cpu(plan_precision(config, torch::kCPU).autocast));
  config.train.precision = "fp16";
  EXPECT_FALSE(
      bf16_matmuls_on_cpu(plan_precision(config, torch::Device(torch::kCUDA, 0)).autocast));
}

// The device-side clipping must equal LibTorch's clip_grad_norm_ bit for bit (norm and
// clipped gradients), with clipping active and off.
TEST(GradClip, MatchesLibTorchClipGradNorm) {
  for (double max_norm : {0.5, std::numeric_limits<double>::infinity()}) {
    torch::manual_seed(3);
    std::vector<torch::Tensor> ours, theirs;
    for (int64_t n : {5, 17, 3}) {
      torch::Tensor g = torch::randn({n}) * 0.7;
      ours.push_back(torch::zeros({n}, torch::requires_grad()));
      theirs.push_back(torch::zeros({n}, torch::requires_grad()));
      ours.back().mutable_grad() = g.clone();
      theirs.back().mutable_grad() = g.clone();
    }
    const double expected = torch::nn::utils::clip_grad_norm_(theirs, max_norm);
    const torch::Tensor norm = clip_grad_norm_on_device(ours, max_norm);
    EXPECT_EQ(static_cast<double>(norm.item<float>()), expected) << max_norm;
    for (size_t i = 0; i < ours.size(); ++i)
      EXPECT_TRUE(torch::equal(ours[i].grad(), theirs[i].grad())) << max_norm << " " << i;
  }
}

}  // namespace test_mixed_precision
}  // namespace fathom
