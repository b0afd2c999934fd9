// The training-time noise scale's device side (core/train/noise_scale_monitor.h) fed the
// gradients a trainer accumulates -- sum over batches of objective / update tokens, times the
// loss scale -- in the order a trainer reads them: its estimates are base's two-batch solution
// of the per-token mean gradients, computed here by hand from the batches' gradient sums.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <vector>

#include "base/metrics/noise_scale_window.h"
#include "core/train/noise_scale_monitor.h"

namespace fathom {
namespace test_noise_scale_monitor {

double sq(const torch::Tensor& t) { return t.to(torch::kFloat64).square().sum().item<double>(); }

// Parameters of 3 and 2 elements; a batch's gradient sum over its tokens, flat over both.
struct Model {
  std::vector<torch::Tensor> parameters{torch::zeros({3}, torch::requires_grad()),
                                        torch::zeros({2}, torch::requires_grad())};
  void set_grad(const torch::Tensor& flat) {
    parameters[0].mutable_grad() = flat.narrow(0, 0, 3).clone();
    parameters[1].mutable_grad() = flat.narrow(0, 3, 2).clone();
  }
  torch::Tensor grad_norm() const {
    return torch::cat({parameters[0].grad(), parameters[1].grad()}).norm();
  }
};

// One process, an update of two batches (2 and 6 tokens), fp16's loss scale 8: the small
// gradient is the first batch's mean c1 / 2, the update's (c1 + c2) / 8.
TEST(NoiseScaleMonitor, OneProcessReadsTheFirstBatchAgainstTheUpdate) {
  const torch::Tensor c1 = torch::tensor({1.0, -2.0, 0.5, 3.0, 1.0}, torch::kFloat32);
  const torch::Tensor c2 = torch::tensor({4.0, 1.0, -1.0, 2.0, -3.0}, torch::kFloat32);
  const double scale = 8, tokens = 8;
  Model m;
  NoiseScaleMonitor monitor(m.parameters, torch::kCPU);
  monitor.begin_update(8, scale);
  m.set_grad(c1 / tokens * scale);
  monitor.after_batch(0, 2, 2);
  m.set_grad((c1 + c2) / tokens * scale);
  monitor.after_batch(1, 2, 6);
  m.set_grad((c1 + c2) / tokens);  // unscaled, as the clipping reads it
  monitor.end_update(m.grad_norm());

  double trace = 0, grad_sq = 0;
  solve_two_batch(TwoBatchReading{sq(c1 / 2), 0.5, sq((c1 + c2) / tokens), tokens}, trace, grad_sq);
  const NoiseScaleWindow w = monitor.window();
  EXPECT_EQ(w.updates, 1);
  EXPECT_NEAR(w.trace, trace, 1e-5 * std::abs(trace));
  EXPECT_NEAR(w.grad_sq, grad_sq, 1e-5 * std::abs(trace));
  EXPECT_NEAR(w.trace_sq, trace * trace, 1e-5 * trace * trace);
  monitor.reset();
  EXPECT_EQ(monitor.window().updates, 0);
  EXPECT_EQ(monitor.window().trace, 0.0);
}

// An update of one batch has no small gradient: nothing is added. A skipped update (no
// gradient norm) neither.
TEST(NoiseScaleMonitor, AnUpdateOfOneBatchOrWithoutANormAddsNothing) {
  Model m;
  NoiseScaleMonitor monitor(m.parameters, torch::kCPU);
  monitor.begin_update(5, 1);
  m.set_grad(torch::ones({5}));
  monitor.after_batch(0, 1, 5);
  monitor.end_update(m.grad_norm());
  monitor.begin_update(5, 1);
  monitor.after_batch(0, 2, 2);
  monitor.after_batch(1, 2, 3);
  monitor.end_update(torch::Tensor());
  EXPECT_EQ(monitor.window().updates, 0);
}

// Two ranks of 3 and 5 tokens: each reads its share's mean gradient before the reduction; the
// reduction sums their readings; the small equation is then the ranks' mean |g|^2 against
// their mean 1 / B (base/metrics/noise_scale.h's unequal sizes).
TEST(NoiseScaleMonitor, RanksReadTheirSharesAgainstTheirSum) {
  const torch::Tensor c0 = torch::tensor({1.0, 0.0, 2.0, -1.0, 1.0}, torch::kFloat32);
  const torch::Tensor c1 = torch::tensor({-2.0, 1.0, 1.0, 0.5, 2.0}, torch::kFloat32);
  const double tokens = 8;
  Model rank0, rank1;
  NoiseScaleMonitor m0(rank0.parameters, torch::kCPU, 2), m1(rank1.parameters, torch::kCPU, 2);
  m0.begin_update(8, 1);
  m1.begin_update(8, 1);
  rank0.set_grad(c0 / tokens);
  m0.after_batch(0, 1, 3);
  rank1.set_grad(c1 / tokens);
  m1.after_batch(0, 2, 2);  // a share of two batches: read after the last
  EXPECT_FALSE(m1.share_reading().defined() && m1.share_reading()[2].item<double>() > 0);
  m1.after_batch(1, 2, 3);
  const torch::Tensor sum = m0.share_reading() + m1.share_reading();
  EXPECT_DOUBLE_EQ(sum[2].item<double>(), 2.0);
  m0.set_ranks_reading(sum[0].item<double>(), sum[1].item<double>(), sum[2].item<double>());
  rank0.set_grad((c0 + c1) / tokens);  // the reduced gradient
  m0.end_update(rank0.grad_norm());

  double trace = 0, grad_sq = 0;
  const double small_sq = (sq(c0 / 3) + sq(c1 / 5)) / 2, inverse = (1.0 / 3 + 1.0 / 5) / 2;
  solve_two_batch(TwoBatchReading{small_sq, inverse, sq((c0 + c1) / tokens), tokens}, trace,
                  grad_sq);
  const NoiseScaleWindow w = m0.window();
  ASSERT_EQ(w.updates, 1);
  EXPECT_NEAR(w.trace, trace, 1e-5 * std::abs(trace));
  EXPECT_NEAR(w.grad_sq, grad_sq, 1e-5 * std::abs(trace));
}

// A resumed run's monitor continues its checkpoint's window.
TEST(NoiseScaleMonitor, RestoredWindowContinues) {
  Model m;
  NoiseScaleMonitor monitor(m.parameters, torch::kCPU);
  monitor.restore(NoiseScaleWindow{3, 1.5, 2.5, -0.25, 4.0});
  const NoiseScaleWindow w = monitor.window();
  EXPECT_EQ(w.updates, 3);
  EXPECT_EQ(w.trace, 1.5);
  EXPECT_EQ(w.trace_sq, 2.5);
  EXPECT_EQ(w.grad_sq, -0.25);
  EXPECT_EQ(w.grad_sq_sq, 4.0);
}

}  // namespace test_noise_scale_monitor
}  // namespace fathom
