// fathom::dropout (core/model/dropout.h): the CPU keep mask drawn in parallel from SplitMix64 at
// each element's index, offset by one draw of LibTorch's default generator. Checked: the kept
// fraction and its values (binomial bounds), no correlation between neighbours or between
// consecutive masks, the same mask from the same seed or generator state (what the trainer's
// per-update seeds, checkpoints and the checkpointed layers' replay rely on) and for any number
// of threads, the gradient through the mask, the identities (eval, p = 0) and p = 1.
#include <gtest/gtest.h>

#include <cmath>

#include "core/model/dropout.h"

namespace fathom {
namespace test_dropout {

constexpr int64_t kN = 1 << 20;

// Within 5 standard deviations of a binomial proportion over n draws.
void expect_fraction(double observed, double p, int64_t n, const char* what) {
  EXPECT_NEAR(observed, p, 5 * std::sqrt(p * (1 - p) / static_cast<double>(n))) << what;
}

TEST(Dropout, KeepsAFractionOneMinusPScaledByItsInverse) {
  for (const double p : {0.1, 0.3, 0.5, 0.9}) {
    SCOPED_TRACE(p);
    torch::manual_seed(1);
    const torch::Tensor mask = dropout_keep_mask({kN}, torch::kFloat, p);
    const torch::Tensor kept = mask.ne(0);
    expect_fraction(kept.to(torch::kDouble).mean().item<double>(), 1 - p, kN, "kept");
    // Every kept element is 1 / (1 - p), so the mask's mean is 1 in expectation.
    const float scale = static_cast<float>(1.0 / (1.0 - p));
    EXPECT_TRUE(mask.masked_select(kept).eq(scale).all().item<bool>());
    // The top and bottom halves, and a strided sample, keep alike (no drift along the index).
    expect_fraction(kept.slice(0, 0, kN / 2).to(torch::kDouble).mean().item<double>(), 1 - p,
                    kN / 2, "first half");
    expect_fraction(kept.slice(0, kN / 2).to(torch::kDouble).mean().item<double>(), 1 - p, kN / 2,
                    "second half");
    expect_fraction(kept.slice(0, 0, kN, 64).to(torch::kDouble).mean().item<double>(), 1 - p,
                    kN / 64, "every 64th");
  }
}

// Pearson's correlation of two 0/1 sequences: about N(0, 1/n) when independent.
double correlation(const torch::Tensor& a, const torch::Tensor& b) {
  const torch::Tensor x = a.to(torch::kDouble) - a.to(torch::kDouble).mean();
  const torch::Tensor y = b.to(torch::kDouble) - b.to(torch::kDouble).mean();
  return ((x * y).sum() / (x.norm() * y.norm())).item<double>();
}

TEST(Dropout, NeighboursAndConsecutiveMasksAreUncorrelated) {
  torch::manual_seed(2);
  const torch::Tensor first = dropout_keep_mask({kN}, torch::kFloat, 0.5).ne(0);
  const torch::Tensor second = dropout_keep_mask({kN}, torch::kFloat, 0.5).ne(0);
  const double bound = 5 / std::sqrt(static_cast<double>(kN));
  EXPECT_LT(std::abs(correlation(first.slice(0, 0, kN - 1), first.slice(0, 1))), bound)
      << "element i and i + 1";
  EXPECT_LT(std::abs(correlation(first.slice(0, 0, kN - 1024), first.slice(0, 1024))), bound)
      << "element i and i + 1024";
  EXPECT_LT(std::abs(correlation(first, second)), bound) << "two draws in a row";
}

TEST(Dropout, TheSeedOrTheGeneratorStateRepeatsTheMask) {
  torch::manual_seed(3);
  const torch::Tensor a = dropout_keep_mask({64, 33}, torch::kFloat, 0.2);
  torch::manual_seed(3);
  EXPECT_TRUE(torch::equal(dropout_keep_mask({64, 33}, torch::kFloat, 0.2), a));
  torch::manual_seed(4);
  EXPECT_FALSE(torch::equal(dropout_keep_mask({64, 33}, torch::kFloat, 0.2), a));
  // A saved generator state replays the next mask (checkpoints, checkpointed layers).
  at::Generator generator = at::detail::getDefaultCPUGenerator();
  const torch::Tensor state = generator.get_state();
  const torch::Tensor b = dropout_keep_mask({64, 33}, torch::kFloat, 0.2);
  generator.set_state(state);
  EXPECT_TRUE(torch::equal(dropout_keep_mask({64, 33}, torch::kFloat, 0.2), b));
}

TEST(Dropout, TheMaskDoesNotDependOnTheNumberOfThreads) {
  const int threads = torch::get_num_threads();
  torch::set_num_threads(1);
  torch::manual_seed(5);
  const torch::Tensor one = dropout_keep_mask({kN}, torch::kFloat, 0.1);
  torch::set_num_threads(4);
  torch::manual_seed(5);
  const torch::Tensor four = dropout_keep_mask({kN}, torch::kFloat, 0.1);
  torch::set_num_threads(threads);
  EXPECT_TRUE(torch::equal(one, four));
}

// d/dx sum(dropout(x) * w) = w * mask: zero where the output was dropped, w / (1 - p) elsewhere.
TEST(Dropout, TheGradientFlowsThroughTheKeptElementsOnly) {
  const double p = 0.25;
  torch::manual_seed(6);
  const torch::Tensor x = torch::rand({40, 17}, torch::kDouble).add_(0.5).requires_grad_(true);
  const torch::Tensor w = torch::randn({40, 17}, torch::kDouble);
  const torch::Tensor y = fathom::dropout(x, p, /*training=*/true);
  (y * w).sum().backward();
  const torch::Tensor kept = y.detach().ne(0);  // x > 0.5: zero only where dropped
  EXPECT_GT(kept.logical_not().sum().item<int64_t>(), 0);
  EXPECT_TRUE(torch::allclose(y.detach(), torch::where(kept, x.detach() / (1 - p), 0.0)));
  EXPECT_TRUE(torch::allclose(x.grad(), torch::where(kept, w / (1 - p), 0.0)));
}

// The layers' dropout (one pass, a one-byte mask kept for the backward) and the mask the CPU
// attention loop draws (dropout_keep_mask) drop the same elements from the same seed, with the
// same values in float and double and within the type's rounding in bfloat16, backward too.
TEST(Dropout, TheLayersDropWhatTheKeepMaskSays) {
  for (const auto dtype : {torch::kFloat, torch::kDouble, torch::kBFloat16}) {
    SCOPED_TRACE(dtype);
    const torch::Tensor x = torch::randn({3, 7, 129}).to(dtype).requires_grad_(true);
    torch::manual_seed(8);
    const torch::Tensor y = fathom::dropout(x, 0.3, /*training=*/true);
    torch::manual_seed(8);
    const torch::Tensor mask = dropout_keep_mask(x.sizes(), x.options(), 0.3);
    ASSERT_EQ(y.scalar_type(), dtype);
    EXPECT_TRUE(torch::equal(y.detach().ne(0), mask.ne(0) & x.detach().ne(0)));
    const double tolerance = dtype == torch::kBFloat16 ? 1e-2 : 1e-6;
    EXPECT_TRUE(torch::allclose(y.detach().to(torch::kDouble),
                                (x.detach() * mask).to(torch::kDouble), tolerance, 1e-6));
    const torch::Tensor w = torch::randn({3, 7, 129}).to(dtype);
    (y * w).sum().backward();
    EXPECT_TRUE(torch::allclose(x.grad().to(torch::kDouble), (w * mask).to(torch::kDouble),
                                tolerance, 1e-6));
  }
}

TEST(Dropout, EvaluationAndZeroRateLeaveTheInputAndOneDropsEverything) {
  const torch::Tensor x = torch::randn({8, 5});
  EXPECT_TRUE(fathom::dropout(x, 0.5, /*training=*/false).is_same(x));
  EXPECT_TRUE(fathom::dropout(x, 0.0, /*training=*/true).is_same(x));
  EXPECT_TRUE(fathom::dropout(x, 1.0, /*training=*/true).eq(0).all().item<bool>());
}

// Half and bfloat16 masks (the CPU autocast's activations) hold the same pattern as a float one
// from the same seed, with the scale rounded to the type.
TEST(Dropout, EveryFloatingTypeGetsTheSamePattern) {
  torch::manual_seed(7);
  const torch::Tensor f = dropout_keep_mask({1000}, torch::kFloat, 0.1);
  for (const auto dtype : {torch::kDouble, torch::kBFloat16, torch::kHalf}) {
    torch::manual_seed(7);
    const torch::Tensor m = dropout_keep_mask({1000}, dtype, 0.1);
    EXPECT_EQ(m.scalar_type(), dtype);
    EXPECT_TRUE(torch::equal(m.ne(0), f.ne(0))) << dtype;
    EXPECT_NEAR(m.max().item<double>(), 1 / 0.9, 1e-2) << dtype;
  }
}

}  // namespace test_dropout
}  // namespace fathom
