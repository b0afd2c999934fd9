// Muon (core/train/muon.h, core/train/optimizer.h): the Newton-Schulz quintic acts on each
// singular value of the normalized matrix as the scalar map s <- a s + b s^3 + c s^5, so the
// expected orthogonalization is U f(S / ||G||_F) V^T from the test's own SVD, f the map
// iterated 5 times by hand; the optimizer's update against Liu et al. 2025's algorithm 1
// written out here; and a trained run.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "base/config/config.h"
#include "base/config/config_io.h"
#include "base/util/error.h"
#include "core/train/muon.h"
#include "core/train/optimizer.h"
#include "tests/support/config_test_helpers.h"
#include "tests/support/input_error.h"
#include "tests/support/trainer_test_fixture.h"

namespace fathom {
namespace test_muon {
using testing::series;
using testing::tiny_config;
using testing::TrainerTest;

// The quintic's 5-fold map of one singular value (the constants of Jordan et al. 2024).
double quintic_5(double s) {
  for (int i = 0; i < 5; ++i) s = 3.4445 * s - 4.7750 * s * s * s + 2.0315 * std::pow(s, 5);
  return s;
}

// U f(S / ||G||_F) V^T in double, from the SVD.
torch::Tensor expected_orthogonalized(const torch::Tensor& g) {
  const torch::Tensor d = g.to(torch::kFloat64);
  auto [u, s, v] = torch::svd(d);
  const double norm = d.norm().item<double>() + 1e-7;
  torch::Tensor f = torch::empty_like(s);
  for (int64_t i = 0; i < s.size(0); ++i) f[i] = quintic_5(s[i].item<double>() / norm);
  return torch::mm(u * f.unsqueeze(0), v.t());
}

// Wide, tall and square matrices: every singular value follows the scalar map. Fails with a
// wrong coefficient, a missing normalization, an iteration too many or too few, or a tall
// matrix orthogonalized without its transpose (X X^T then has the wrong size's spectrum).
TEST(Muon, NewtonSchulzMapsEverySingularValueByTheQuintic) {
  torch::manual_seed(3);
  for (auto shape : std::vector<std::pair<int64_t, int64_t>>{{6, 10}, {10, 6}, {8, 8}}) {
    const torch::Tensor g = torch::randn({shape.first, shape.second}, torch::kFloat64);
    const torch::Tensor got = newton_schulz(g);
    EXPECT_TRUE(torch::allclose(got, expected_orthogonalized(g), 1e-9, 1e-9))
        << shape.first << "x" << shape.second;
    // Roughly orthogonal: singular values within the quintic's band.
    const torch::Tensor sv = std::get<1>(torch::svd(got));
    EXPECT_GT(sv.min().item<double>(), 0.5);
    EXPECT_LT(sv.max().item<double>(), 1.3);
  }
  // A stack of three blocks (packed Q, K, V): each block on its own.
  const torch::Tensor qkv = torch::randn({12, 4}, torch::kFloat64);
  const torch::Tensor got = orthogonalized_blocks(qkv, 3);
  for (int b = 0; b < 3; ++b)
    EXPECT_TRUE(torch::allclose(got.narrow(0, 4 * b, 4),
                                expected_orthogonalized(qkv.narrow(0, 4 * b, 4)), 1e-9, 1e-9))
        << b;
  EXPECT_DOUBLE_EQ(muon_update_scale(qkv, 3), 0.2 * 2.0);  // blocks of 4 x 4
  EXPECT_DOUBLE_EQ(muon_update_scale(torch::zeros({3, 16}), 1), 0.2 * 4.0);
}

// Two updates of a matrix under Muon and a bias under Adam in one optimizer, against the
// algorithm written out here: M1 = G1, W1 = W0 (1 - lr wd) - lr 0.2 sqrt(6) O(G1 + mu M1);
// M2 = mu M1 + G2, W2 = W1 (1 - lr wd) - lr 0.2 sqrt(6) O(G2 + mu M2). Adam's first step moves
// the bias by lr g / (|g| + eps) = lr sign(g) (bias-corrected). Fails without Nesterov, with
// the momentum in place of the gradient, the scale of the wrong side, or Muon applied to the
// bias.
TEST(Muon, TheOptimizerFollowsAlgorithmOneAndAdamForTheRest) {
  torch::manual_seed(5);
  TrainConfig tc;
  tc.optimizer = "muon";
  tc.muon_momentum = 0.9;
  tc.weight_decay = 0.1;
  torch::Tensor w = torch::randn({4, 6}, torch::kFloat64).requires_grad_(true);
  torch::Tensor bias = torch::randn({4}, torch::kFloat64).requires_grad_(true);
  const torch::Tensor w0 = w.detach().clone(), b0 = bias.detach().clone();
  Optimizer optimizer(std::vector<ParameterGroup>{{"all", 1.0, 1.0, {{"w", w}, {"b", bias}}}}, tc,
                      {{w, 1}});
  const double lr = 0.01, mu = 0.9, wd = 0.1, scale = 0.2 * std::sqrt(6.0);
  const torch::Tensor g1 = torch::randn({4, 6}, torch::kFloat64);
  const torch::Tensor g2 = torch::randn({4, 6}, torch::kFloat64);
  const torch::Tensor gb = torch::randn({4}, torch::kFloat64);
  w.mutable_grad() = g1.clone();
  bias.mutable_grad() = gb.clone();
  optimizer.step(lr);
  const torch::Tensor m1 = g1;
  const torch::Tensor w1 = w0 * (1 - lr * wd) - lr * scale * expected_orthogonalized(g1 + mu * m1);
  EXPECT_TRUE(torch::allclose(w.detach(), w1, 1e-9, 1e-12));
  const torch::Tensor b1 = b0 * (1 - lr * wd) - lr * gb / (gb.abs() + tc.eps);
  EXPECT_TRUE(torch::allclose(bias.detach(), b1, 1e-9, 1e-12));

  w.mutable_grad() = g2.clone();
  bias.mutable_grad() = torch::zeros({4}, torch::kFloat64);
  optimizer.step(lr);
  const torch::Tensor m2 = mu * m1 + g2;
  const torch::Tensor w2 = w1 * (1 - lr * wd) - lr * scale * expected_orthogonalized(g2 + mu * m2);
  EXPECT_TRUE(torch::allclose(w.detach(), w2, 1e-9, 1e-12));
}

// Muon's momentum means nothing to Adam: set with another optimizer, it is refused where it
// was written.
TEST(Muon, ItsMomentumWithAnotherOptimizerIsRefused) {
  const InputError e = testing::expect_input_error([] {
    check_config(testing::synthetic_config({"train:", "  muon_momentum: 0.9"}));
  });
  EXPECT_EQ(e.field(), "train.muon_momentum");
  EXPECT_EQ(e.line(), 4);
  EXPECT_NO_THROW(check_config(
      testing::synthetic_config({"train:", "  optimizer: muon", "  muon_momentum: 0.9"})));
}

// A tiny model trains under Muon: the loss falls, and the run is another run than Adam's.
TEST_F(TrainerTest, AMuonRunTrainsAndDiffersFromAdam) {
  RunConfig adam = tiny_config();  // 25 updates, logged at 10, 20, 25
  adam.eval.max_sentences = 1;
  RunConfig muon = adam;
  muon.train.optimizer = "muon";
  const int64_t a = new_run(adam), m = new_run(muon);
  ASSERT_EQ(train(adam, a).status, "finished");
  ASSERT_EQ(train(muon, m).status, "finished");
  const auto loss = series(*store_, m, "train_loss");
  EXPECT_LT(loss.at(25), loss.at(10));
  EXPECT_LT(series(*store_, m, "valid_loss").at(25), series(*store_, m, "valid_loss").at(0));
  EXPECT_NE(loss.at(25), series(*store_, a, "train_loss").at(25));
}

// Muon's momentum travels in the checkpoint: a run stopped after update 12 and resumed logs
// the uninterrupted run's losses bit for bit. Fails if the momentum is not saved or restored
// (the first update after the resume would orthogonalize the gradient alone).
TEST_F(TrainerTest, AStoppedMuonRunResumesToTheSameLosses) {
  RunConfig config = tiny_config();
  config.train.optimizer = "muon";
  config.train.log_every = 1;
  config.eval.max_sentences = 1;
  const int64_t a = new_run(config), b = new_run(config);
  ASSERT_EQ(train(config, a).status, "finished");
  const TrainOutcome stopped = train_stopped_when(
      config, b, [&](const db::Store& s) { return s.last_metric_step(b, "train_loss") >= 12; });
  ASSERT_EQ(stopped.status, "stopped");
  ASSERT_LT(stopped.updates, 25);
  ASSERT_EQ(train(config, b, /*resume=*/true).status, "finished");
  expect_same_train_loss(a, b, 25);
}

}  // namespace test_muon
}  // namespace fathom
