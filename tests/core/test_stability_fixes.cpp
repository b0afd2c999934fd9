// The fixes for attention-logit growth and output-logit divergence (issue 38 item 4):
// QK-LayerNorm (core/model/qk_norm.h) worked by hand on a one-head module and as a bound on a
// whole model's logits however large its projections grow; the z-loss (core/train/z_loss.h)
// and its gradient worked by hand, and its pull on log Z during training.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "base/config/config.h"
#include "core/model/attention.h"
#include "core/model/transformer.h"
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

}  // namespace test_stability_fixes
}  // namespace fathom
