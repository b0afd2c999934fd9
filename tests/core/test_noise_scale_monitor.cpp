// The training-time noise scale's device side (core/train/noise_scale_monitor.h) fed the
// gradients a trainer accumulates -- sum over batches of objective / update tokens, times the
// loss scale -- in the order a trainer reads them: its estimates are base's two-batch solution
// with the batches' mean |g_k|^2 and mean 1 / B_k as the small side, computed here by hand from
// the batches' gradient sums.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
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

// One process, an update of three batches (2, 6 and 4 tokens), fp16's loss scale 8: each
// batch's mean gradient c_k / B_k is a small reading, the update's (c1 + c2 + c3) / 12 the big.
TEST(NoiseScaleMonitor, OneProcessReadsEveryBatchAgainstTheUpdate) {
  const torch::Tensor c1 = torch::tensor({1.0, -2.0, 0.5, 3.0, 1.0}, torch::kFloat32);
  const torch::Tensor c2 = torch::tensor({4.0, 1.0, -1.0, 2.0, -3.0}, torch::kFloat32);
  const torch::Tensor c3 = torch::tensor({-1.0, 2.5, 2.0, 0.0, 1.5}, torch::kFloat32);
  const double scale = 8, tokens = 12;
  Model m;
  NoiseScaleMonitor monitor(m.parameters, torch::kCPU);
  monitor.begin_update(12, scale);
  m.set_grad(c1 / tokens * scale);
  monitor.after_batch(0, 3, 2);
  m.set_grad((c1 + c2) / tokens * scale);
  monitor.after_batch(1, 3, 6);
  m.set_grad((c1 + c2 + c3) / tokens * scale);
  monitor.after_batch(2, 3, 4);
  m.set_grad((c1 + c2 + c3) / tokens);  // unscaled, as the clipping reads it
  monitor.end_update(m.grad_norm());

  double trace = 0, grad_sq = 0;
  const double small_sq = (sq(c1 / 2) + sq(c2 / 6) + sq(c3 / 4)) / 3;
  const double inverse = (1.0 / 2 + 1.0 / 6 + 1.0 / 4) / 3;
  solve_two_batch(TwoBatchReading{small_sq, inverse, sq((c1 + c2 + c3) / tokens), tokens}, trace,
                  grad_sq);
  const NoiseScaleWindow w = monitor.window();
  EXPECT_EQ(w.updates, 1);
  EXPECT_NEAR(w.trace, trace, 1e-5 * std::abs(trace));
  EXPECT_NEAR(w.grad_sq, grad_sq, 1e-5 * std::abs(trace));
  EXPECT_NEAR(w.trace_sq, trace * trace, 1e-5 * trace * trace);
  monitor.reset();
  EXPECT_EQ(monitor.window().updates, 0);
  EXPECT_EQ(monitor.window().trace, 0.0);
}

// A parameter no batch before the second reached (an embedding row, a branch one batch skips)
// has no gradient after the first: its share of the second is its whole gradient then. The
// next update starts from zero again, whatever the last one left.
TEST(NoiseScaleMonitor, AParameterFirstReachedByALaterBatch) {
  const torch::Tensor a1 = torch::tensor({1.0, 2.0, -1.0}), a2 = torch::tensor({0.5, -1.0, 3.0});
  const torch::Tensor b2 = torch::tensor({2.0, -2.0});
  const double tokens = 10;
  Model m;
  NoiseScaleMonitor monitor(m.parameters, torch::kCPU);
  for (int update = 0; update < 2; ++update) {
    monitor.begin_update(10, 1);
    m.parameters[0].mutable_grad() = a1 / tokens;
    m.parameters[1].mutable_grad() = torch::Tensor();
    monitor.after_batch(0, 2, 4);
    m.parameters[0].mutable_grad() = (a1 + a2) / tokens;
    m.parameters[1].mutable_grad() = b2 / tokens;
    monitor.after_batch(1, 2, 6);
    monitor.end_update(m.grad_norm());
  }
  double trace = 0, grad_sq = 0;
  const double small_sq = (sq(a1 / 4) + sq(torch::cat({a2, b2}) / 6)) / 2;
  solve_two_batch(TwoBatchReading{small_sq, (1.0 / 4 + 1.0 / 6) / 2,
                                  sq(torch::cat({a1 + a2, b2}) / tokens), tokens},
                  trace, grad_sq);
  const NoiseScaleWindow w = monitor.window();
  ASSERT_EQ(w.updates, 2);
  EXPECT_NEAR(w.trace, 2 * trace, 1e-5 * std::abs(trace));
  EXPECT_NEAR(w.grad_sq, 2 * grad_sq, 1e-5 * std::abs(trace));
}

// Updates of 4 batches of 32 tokens drawn around a known mean gradient G with per-token
// covariance diag(sigma): the window's mean trace recovers tr(Sigma) (within 4 of its standard
// errors), and its spread over updates is well under that of the first batch read alone
// (computed here from the same draws) -- the reason every batch is read: the mean gradient's
// cross term cancels in the within-update scatter.
TEST(NoiseScaleMonitor, EveryBatchReadsTheTraceWithLessSpreadThanTheFirstAlone) {
  torch::manual_seed(7);
  const int64_t dims = 5, batches = 4, batch_tokens = 32, updates = 3000;
  const double tokens = batches * batch_tokens;
  const torch::Tensor mean = torch::tensor({0.3, -0.2, 0.25, 0.1, -0.35}, torch::kFloat64);
  const torch::Tensor sigma = torch::tensor({1.0, 0.5, 2.0, 0.25, 1.5}, torch::kFloat64);
  const double true_trace = sigma.sum().item<double>();
  std::vector<torch::Tensor> parameters{torch::zeros({dims}, torch::kFloat64).requires_grad_()};
  NoiseScaleMonitor monitor(parameters, torch::kCPU);
  double first_sum = 0, first_sq_sum = 0;
  for (int64_t u = 0; u < updates; ++u) {
    monitor.begin_update(static_cast<int64_t>(tokens), 1);
    torch::Tensor sum = torch::zeros({dims}, torch::kFloat64), first;
    for (int64_t k = 0; k < batches; ++k) {
      // a batch's per-token mean gradient: G + noise of covariance sigma / batch_tokens
      const torch::Tensor g = mean + torch::randn({dims}, torch::kFloat64) *
                                         (sigma / static_cast<double>(batch_tokens)).sqrt();
      if (k == 0) first = g;
      sum += g * static_cast<double>(batch_tokens);
      parameters[0].mutable_grad() = sum / tokens;
      monitor.after_batch(static_cast<size_t>(k), batches, batch_tokens);
    }
    monitor.end_update(parameters[0].grad().norm());
    double trace = 0, grad_sq = 0;
    solve_two_batch(TwoBatchReading{sq(first), 1.0 / batch_tokens, sq(sum / tokens), tokens}, trace,
                    grad_sq);
    first_sum += trace;
    first_sq_sum += trace * trace;
  }
  const NoiseScaleWindow w = monitor.window();
  ASSERT_EQ(w.updates, updates);
  const double n = static_cast<double>(updates);
  const double every_mean = w.trace / n;
  const double every_sd = std::sqrt((w.trace_sq / n - every_mean * every_mean) * n / (n - 1));
  const double first_mean = first_sum / n;
  const double first_sd = std::sqrt((first_sq_sum / n - first_mean * first_mean) * n / (n - 1));
  EXPECT_NEAR(every_mean, true_trace, 4 * every_sd / std::sqrt(n));
  EXPECT_NEAR(first_mean, true_trace, 4 * first_sd / std::sqrt(n));
  EXPECT_LT(every_sd, 0.5 * first_sd) << "every batch " << every_sd << ", first " << first_sd;
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

// Two ranks of 3 and 5 tokens, the second's share two batches (2 and 3 tokens): each rank reads
// its batches before the reduction; the reduction sums their readings; the small equation is
// then the three batches' mean |g|^2 against their mean 1 / B (base/metrics/noise_scale.h's
// unequal sizes).
TEST(NoiseScaleMonitor, RanksReadTheirBatchesAgainstTheirSum) {
  const torch::Tensor c0 = torch::tensor({1.0, 0.0, 2.0, -1.0, 1.0}, torch::kFloat32);
  const torch::Tensor c1a = torch::tensor({-2.0, 1.0, 1.0, 0.5, 2.0}, torch::kFloat32);
  const torch::Tensor c1b = torch::tensor({0.5, -1.0, 3.0, 1.0, -0.5}, torch::kFloat32);
  const double tokens = 8;
  Model rank0, rank1;
  NoiseScaleMonitor m0(rank0.parameters, torch::kCPU, 2), m1(rank1.parameters, torch::kCPU, 2);
  m0.begin_update(8, 1);
  m1.begin_update(8, 1);
  rank0.set_grad(c0 / tokens);
  m0.after_batch(0, 1, 3);
  rank1.set_grad(c1a / tokens);
  m1.after_batch(0, 2, 2);
  rank1.set_grad((c1a + c1b) / tokens);
  m1.after_batch(1, 2, 3);
  EXPECT_DOUBLE_EQ(m1.share_reading()[2].item<double>(), 2.0);
  const torch::Tensor sum = m0.share_reading() + m1.share_reading();
  EXPECT_DOUBLE_EQ(sum[2].item<double>(), 3.0);
  m0.set_ranks_reading(sum[0].item<double>(), sum[1].item<double>(), sum[2].item<double>());
  rank0.set_grad((c0 + c1a + c1b) / tokens);  // the reduced gradient
  m0.end_update(rank0.grad_norm());

  double trace = 0, grad_sq = 0;
  const double small_sq = (sq(c0 / 3) + sq(c1a / 2) + sq(c1b / 3)) / 3;
  const double inverse = (1.0 / 3 + 1.0 / 2 + 1.0 / 3) / 3;
  solve_two_batch(TwoBatchReading{small_sq, inverse, sq((c0 + c1a + c1b) / tokens), tokens}, trace,
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
