// The fixes for attention-logit growth and output-logit divergence (issue 38 item 4):
// QK-LayerNorm (core/model/qk_norm.h) worked by hand on a one-head module and as a bound on a
// whole model's logits however large its projections grow; the z-loss (core/train/z_loss.h)
// and its gradient worked by hand, and its pull on log Z during training; sigma-Reparam
// (core/model/sigma_reparam.h) against spectral norms computed by SVD.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "base/config/config.h"
#include "base/config/config_io.h"
#include "base/util/error.h"
#include "core/model/admin.h"
#include "core/model/attention.h"
#include "core/model/sigma_reparam.h"
#include "core/model/transformer.h"
#include "core/train/objective.h"
#include "core/train/z_loss.h"
#include "db/metric_names.h"
#include "tests/support/trainer_test_fixture.h"

namespace fathom {
namespace test_stability_fixes {
using testing::tiny_config;
using testing::TrainerTest;

class LargestLogit : public SublayerObserver {
 public:
  void on_attention(const SublayerId&, const AttentionTrace& trace) override {
    largest = std::max(largest, trace.logits.abs().max().item<double>());
  }
  double largest = 0;
};

// d = 2, one head, q = k = v = x, with QK-LayerNorm (gains 1, biases 0). x_0 = (3, 1) and
// x_1 = (1, 5) normalize to (1, -1) / sqrt(1 + eps) and (-1, 1) / sqrt(1 + eps / 4) (variance 1
// and 4 over d_h = 2): logits +-2 / sqrt(2) / (those roots), where without it x_0.x_1 / sqrt(2)
// = 8 / sqrt(2).
TEST(QkNorm, NormalizesEachHeadsQueriesAndKeysWorkedByHand) {
  auto hooks = std::make_shared<ModelHooks>();
  struct Record : SublayerObserver {
    void on_attention(const SublayerId&, const AttentionTrace& t) override { logits = t.logits; }
    torch::Tensor logits;
  } observer;
  hooks->observer = &observer;
  ParameterCatalog catalog;
  ModelConfig config;
  config.d_model = 2;
  config.heads = 1;
  config.attention_dropout = 0;
  config.fused_attention = "off";
  config.qk_norm = true;
  MultiheadAttention attention = make_attention(
      config, SublayerId{Stack::Encoder, 0, SublayerKind::SelfAttention, 0}, hooks, catalog);
  ASSERT_EQ(catalog.norms.size(), 2u);
  EXPECT_EQ(catalog.norms[0].name, "enc.0.self_attn.q_norm");
  torch::NoGradGuard no_grad;
  for (auto& p : attention->named_parameters()) {
    if (p.key() == "qkv.weight")
      p.value().copy_(torch::cat({torch::eye(2), torch::eye(2), torch::eye(2)}, 0));
    else if (p.key().find("norm.weight") != std::string::npos)
      p.value().fill_(1.0);
    else
      p.value().zero_();
  }
  attention->eval();
  const torch::Tensor x = torch::tensor({3.0f, 1.0f, 1.0f, 5.0f}).view({1, 2, 2});
  attention(x, x, torch::Tensor(), false);
  const double eps = 1e-5, r2 = std::sqrt(2.0);
  const double a = 1 / std::sqrt(1 + eps), b = 1 / std::sqrt(1 + eps / 4);
  const double expected[2][2] = {{2 * a * a / r2, -2 * a * b / r2},
                                 {-2 * a * b / r2, 2 * b * b / r2}};
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      EXPECT_NEAR(observer.logits[0][0][i][j].item<double>(), expected[i][j], 1e-5) << i << j;
}

// However large the query and key projections grow, at initialization's gains the logits stay
// within sqrt(d_h) (Cauchy-Schwarz over unit-variance vectors); without the norm they grow
// with the weights. The norms count as norm parameters: 2 x 2 x d_h per attention sub-layer.
TEST(QkNorm, BoundsTheLogitsOfAModelWhoseProjectionsGrew) {
  RunConfig config = tiny_config();  // d = 16, 2 heads: d_h = 8
  config.model.fused_attention = "off";
  auto largest_logit = [&](bool qk_norm) {
    RunConfig c = config;
    c.model.qk_norm = qk_norm;
    Transformer model = build_model(c, 12, 1);
    torch::NoGradGuard no_grad;
    for (auto& p : model->named_parameters())
      if (p.key().find("qkv.weight") != std::string::npos ||
          p.key().find(".q.weight") != std::string::npos ||
          p.key().find(".kv.weight") != std::string::npos)
        p.value().mul_(30.0);
    LargestLogit observer;
    model->eval();
    model->hooks().observer = &observer;
    const torch::Tensor src = torch::tensor({3, 4, 5, 6, 2}).view({1, 5});
    model->forward(src, src);
    model->hooks().observer = nullptr;
    return std::make_pair(observer.largest, model->parameter_counts()["norms"]);
  };
  const auto [bounded, norms_with] = largest_logit(true);
  const auto [grown, norms_without] = largest_logit(false);
  EXPECT_LE(bounded, std::sqrt(8.0) + 1e-4);
  EXPECT_GT(grown, 10 * std::sqrt(8.0));
  EXPECT_EQ(norms_with - norms_without, 3 * 2 * 2 * 8);  // 3 attentions, q and k, gain and bias
}

// log Z of logits (0, 0) is ln 2; of (ln 3, 0) ln 4; the padded position adds nothing. The
// gradient of (log Z)^2 is 2 log Z softmax: ln 2 per entry at (0, 0).
TEST(ZLoss, SumsSquaredLogZOverRealTokensWorkedByHand) {
  const torch::Tensor logits =
      torch::tensor({0.0f, 0.0f, static_cast<float>(std::log(3.0)), 0.0f, 9.0f, 1.0f})
          .view({1, 3, 2})
          .requires_grad_();
  const torch::Tensor target = torch::tensor({1, 1, 0}).view({1, 3});
  const torch::Tensor z = z_loss_sum(logits, target);
  EXPECT_NEAR(z.item<double>(), std::pow(std::log(2.0), 2) + std::pow(std::log(4.0), 2), 1e-5);
  z.backward();
  EXPECT_NEAR(logits.grad()[0][0][0].item<double>(), std::log(2.0), 1e-5);
  EXPECT_NEAR(logits.grad()[0][1][0].item<double>(), 2 * std::log(4.0) * 0.75, 1e-5);
  EXPECT_EQ(logits.grad()[0][2][0].item<double>(), 0.0);  // padding
}

// The objective an update and the sharpness tracker differentiate, by hand on the logits above
// (V = 2, eps = 0.1): per token (1 - eps) nll + (eps / V) sum_v -log p_v is ln 2 at (0, 0) and
// ln 4 - 0.05 ln 3 at (ln 3, 0) for target 1; the z term adds z ((ln 2)^2 + (ln 4)^2).
TEST(ZLoss, JoinsTheObjectiveOnlyWhenOn) {
  const torch::Tensor logits =
      torch::tensor({0.0f, 0.0f, static_cast<float>(std::log(3.0)), 0.0f, 9.0f, 1.0f})
          .view({1, 3, 2});
  const torch::Tensor target = torch::tensor({1, 1, 0}).view({1, 3});
  const double smoothed = std::log(2.0) + std::log(4.0) - 0.05 * std::log(3.0);
  const ObjectiveSums off = objective_sums(logits, target, 0.1, 0.0);
  EXPECT_NEAR(off.objective.item<double>(), smoothed, 1e-5);
  EXPECT_NEAR(off.loss.nll.item<double>(), std::log(2.0) + std::log(4.0), 1e-5);
  EXPECT_EQ(off.loss.tokens, 2);
  const ObjectiveSums on = objective_sums(logits, target, 0.1, 0.01);
  EXPECT_NEAR(on.objective.item<double>(),
              smoothed + 0.01 * (std::pow(std::log(2.0), 2) + std::pow(std::log(4.0), 2)), 1e-5);
  EXPECT_NEAR(on.loss.smoothed.item<double>(), smoothed, 1e-5);  // the logged loss stays the CE
}

// Trained with a strong z-loss, log Z of the probe batch ends nearer 0 than without (the
// cross entropy is blind to a common shift of the logits; the z-loss is not).
TEST_F(TrainerTest, ZLossPullsLogZTowardZero) {
  RunConfig plain = tiny_config();
  plain.train.probe_every = 25;
  RunConfig pulled = plain;
  pulled.train.z_loss = 0.1;
  const int64_t a = new_run(plain), b = new_run(pulled);
  ASSERT_EQ(train(plain, a).status, "finished");
  ASSERT_EQ(train(pulled, b).status, "finished");
  const double free_z = testing::series(*store_, a, db::metric::kProbeLogZMean).at(25);
  const double pulled_z = testing::series(*store_, b, db::metric::kProbeLogZMean).at(25);
  EXPECT_LT(std::abs(pulled_z), 0.8 * std::abs(free_z)) << free_z << " vs " << pulled_z;
}

// The largest singular value of a matrix (the spectral norm), by SVD.
double spectral_norm(const torch::Tensor& w) {
  return std::get<1>(torch::svd(w.detach().to(torch::kFloat)))[0].item<double>();
}

// Each block of a linear's weight during a forward, as the separate matrix it stands for.
std::vector<torch::Tensor> blocks_of(const LinearEntry& l) {
  const torch::Tensor& w = l.linear->weight;
  return w.view({l.blocks, -1, w.size(1)}).unbind(0);
}

// Worked by hand: one packed linear of two blocks, W_1 = [[3, 0], [0, 1]] (sigma 3) and
// W_2 = [[0, 2], [1, 0]] (sigma 2), no bias. With gamma = 1, x = (1, 1) gives
// W_1 x / 3 = (1, 1/3) and W_2 x / 2 = (1, 1/2). For L = the sum of those outputs,
// dL/dgamma_1 = sum(W_1 x) / 3 = 4/3 and dL/dgamma_2 = sum(W_2 x) / 2 = 3/2.
TEST(SigmaReparam, APackedLinearWorkedByHand) {
  torch::nn::Linear linear(torch::nn::LinearOptions(2, 4).bias(false));
  {
    torch::NoGradGuard no_grad;
    linear->weight.copy_(torch::tensor({3.f, 0.f, 0.f, 1.f, 0.f, 2.f, 1.f, 0.f}).view({4, 2}));
  }
  ParameterCatalog catalog;
  catalog.linears.push_back({"l", linear, LinearRole::AttentionQkv, SublayerId{}, 2});
  SigmaReparam reparam(catalog);
  reparam->initialize();
  ASSERT_EQ(catalog.extras.size(), 1u);  // the gammas, one per block
  EXPECT_EQ(catalog.extras[0].tensor.numel(), 2);

  reparam->apply(/*training=*/true);
  const torch::Tensor y = linear->forward(torch::ones({1, 2}));
  const std::vector<float> want = {1.f, 1.f / 3, 1.f, 0.5f};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(y[0][i].item<float>(), want[i], 1e-6) << i;
  y.sum().backward();
  reparam->restore();
  const torch::Tensor gamma_grad = catalog.extras[0].tensor.grad();
  EXPECT_NEAR(gamma_grad[0].item<float>(), 4.f / 3, 1e-5);
  EXPECT_NEAR(gamma_grad[1].item<float>(), 1.5f, 1e-5);
  // The weight member is the parameter again, with a gradient of its own.
  EXPECT_TRUE(linear->weight.is_same(linear->named_parameters()["weight"]));
  EXPECT_TRUE(linear->weight.grad().defined());
}

// sigma-Reparam in a whole model: during a forward every block of every linear has spectral
// norm 1 (u starts at W's top singular vector); afterwards the module's weight is its
// parameter W again. gamma scales it; a W that turned is followed by the power iteration,
// one step per training forward.
TEST(SigmaReparam, EveryLinearHasTheSpectralNormItsGammaSays) {
  RunConfig config = tiny_config();
  config.model.sigma_reparam = true;
  Transformer model = build_model(config, 12, 1);
  SigmaReparamImpl* reparam = model->sigma_reparam();
  ASSERT_NE(reparam, nullptr);
  auto& linears = model->catalog().linears;
  ASSERT_FALSE(linears.empty());
  torch::NoGradGuard no_grad;
  reparam->apply(/*training=*/false);
  for (const auto& l : linears)
    for (const auto& block : blocks_of(l)) EXPECT_NEAR(spectral_norm(block), 1.0, 1e-4) << l.name;
  reparam->restore();
  for (const auto& l : linears) {
    EXPECT_TRUE(l.linear->weight.is_same(l.linear->named_parameters()["weight"])) << l.name;
    EXPECT_GT(std::abs(spectral_norm(blocks_of(l)[0]) - 1.0), 1e-2) << l.name;  // raw W
  }
  // gamma = 2 doubles it; the gammas are parameters the optimizer sees.
  int gammas = 0;
  for (auto& p : model->named_parameters())
    if (p.key().find("sigma_reparam.gamma_") != std::string::npos) {
      p.value().fill_(2.0);
      ++gammas;
    }
  EXPECT_EQ(gammas, static_cast<int>(linears.size()));
  reparam->apply(false);
  for (const auto& block : blocks_of(linears[0])) EXPECT_NEAR(spectral_norm(block), 2.0, 2e-4);
  reparam->restore();

  // A new W in another direction: training forwards iterate u toward its top singular vector.
  torch::manual_seed(7);
  linears[0].linear->weight.copy_(torch::randn_like(linears[0].linear->weight));
  for (int step = 0; step < 60; ++step) {
    reparam->apply(/*training=*/true);
    reparam->restore();
  }
  reparam->apply(false);
  for (const auto& block : blocks_of(linears[0])) EXPECT_NEAR(spectral_norm(block), 2.0, 2e-3);
  reparam->restore();
}

// Admin's fold-back rescales W's columns by omega, which would change sigma(W): refused.
TEST(SigmaReparam, AnAdminModelWithItIsNotFolded) {
  RunConfig config = tiny_config();
  config.model.init = "admin";
  config.model.sigma_reparam = true;
  Transformer model = build_model(config, 12, 1);
  EXPECT_THROW(fold_admin(*model), std::invalid_argument);
}

// A training forward of the whole model (encode inside decode's forward) advances the power
// iteration once, not once per stack: u moves as much as after one apply(true).
TEST(SigmaReparam, OneForwardIsOneIteration) {
  RunConfig config = tiny_config();
  config.model.sigma_reparam = true;
  config.model.dropout = 0;
  Transformer a = build_model(config, 12, 1), b = build_model(config, 12, 1);
  torch::manual_seed(3);
  {
    torch::NoGradGuard no_grad;
    for (auto* m : {&a, &b}) {
      torch::manual_seed(3);
      for (auto& l : (*m)->catalog().linears)
        l.linear->weight.copy_(torch::randn_like(l.linear->weight));
    }
  }
  a->train();
  const torch::Tensor src = torch::tensor({3, 4, 5, 2}).view({1, 4});
  a->forward(src, src);
  b->sigma_reparam()->apply(true);
  b->sigma_reparam()->restore();
  auto ua = a->named_buffers(), ub = b->named_buffers();
  int compared = 0;
  for (const auto& u : ua)
    if (u.key().find("sigma_reparam.u_") != std::string::npos) {
      EXPECT_TRUE(torch::allclose(u.value(), ub[u.key()], 1e-6, 1e-7)) << u.key();
      ++compared;
    }
  EXPECT_GT(compared, 0);
}

// Evaluation leaves the power iteration where it was (the probes and decoding change no
// state); a model with it trains, and the combination with activation checkpointing is refused.
TEST_F(TrainerTest, SigmaReparamTrainsAndEvaluationKeepsItsState) {
  RunConfig config = tiny_config();
  config.model.sigma_reparam = true;
  Transformer model = build_model(config, 12, 1);
  std::vector<torch::Tensor> before;
  for (const auto& b : model->named_buffers()) before.push_back(b.value().clone());
  model->eval();
  {
    torch::NoGradGuard no_grad;
    const torch::Tensor src = torch::tensor({3, 4, 5, 2}).view({1, 4});
    model->forward(src, src);
  }
  size_t i = 0;
  for (const auto& b : model->named_buffers()) EXPECT_TRUE(torch::equal(b.value(), before[i++]));

  const int64_t run = new_run(config);
  ASSERT_EQ(train(config, run).status, "finished");
  const auto loss = testing::series(*store_, run, "train_loss");
  EXPECT_LT(loss.rbegin()->second, loss.begin()->second);

  RunConfig both = config;
  both.train.checkpoint_activations = true;
  try {
    check_config(both);
    ADD_FAILURE() << "sigma_reparam with checkpoint_activations was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "model.sigma_reparam");
  }
}

}  // namespace test_stability_fixes
}  // namespace fathom
