// The attention observer hook (core/model/observer.h, SublayerObserver::on_attention): an
// installed observer sees each attention sub-layer's logits q.k/sqrt(d_h) and probabilities,
// worked here by hand on a one-head module whose projections are set to the identity; every
// attention of a model reports once per forward, named by its sub-layer, for both stack
// connections; with fused attention on, the observed pass takes the explicit path and gives the
// fused pass's outputs.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "base/config/config.h"
#include "core/model/attention.h"
#include "core/model/transformer.h"
#include "tests/support/test_device.h"

namespace fathom {
namespace test_attention_observer {

struct Seen {
  SublayerId id;
  AttentionTrace trace;
};

class RecordingObserver : public SublayerObserver {
 public:
  void on_attention(const SublayerId& id, const AttentionTrace& trace) override {
    seen.push_back({id, trace});
  }
  std::vector<Seen> seen;
};

// d = 2, one head, q = k = v = x: qkv's weight is [I; I; I], its bias 0.
MultiheadAttention identity_attention(std::shared_ptr<ModelHooks> hooks, bool fused) {
  ParameterCatalog catalog;
  RunConfig config;
  config.model.d_model = 2;
  config.model.heads = 1;
  config.model.attention_dropout = 0.0;
  config.model.fused_attention = fused ? "auto" : "off";
  MultiheadAttention attention =
      make_attention(config.model, SublayerId{Stack::Encoder, 0, SublayerKind::SelfAttention, 0},
                     std::move(hooks), catalog);
  torch::NoGradGuard no_grad;
  for (auto& p : attention->named_parameters()) {
    if (p.key() == "qkv.weight")
      p.value().copy_(torch::cat({torch::eye(2), torch::eye(2), torch::eye(2)}, 0));
    else
      p.value().zero_();
  }
  attention->eval();
  return attention;
}

// x_0 = (1, 0), x_1 = (0, 2): logits x_t.x_s / sqrt(2) = [[1, 0], [0, 4]] / sqrt(2).
TEST(AttentionObserver, SeesTheLogitsAndProbabilitiesWorkedByHand) {
  auto hooks = std::make_shared<ModelHooks>();
  RecordingObserver observer;
  hooks->observer = &observer;
  MultiheadAttention attention = identity_attention(hooks, /*fused=*/false);
  const torch::Tensor x = torch::tensor({1.0f, 0.0f, 0.0f, 2.0f}).view({1, 2, 2});
  attention(x, x, torch::Tensor(), /*causal=*/false);
  ASSERT_EQ(observer.seen.size(), 1u);
  const AttentionTrace& t = observer.seen[0].trace;
  EXPECT_EQ(observer.seen[0].id.name(), "enc.0.self_attn");
  ASSERT_EQ(t.logits.sizes(), (std::vector<int64_t>{1, 1, 2, 2}));
  const double r2 = std::sqrt(2.0);
  const double expected_logits[2][2] = {{1 / r2, 0}, {0, 4 / r2}};
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      EXPECT_NEAR(t.logits[0][0][i][j].item<double>(), expected_logits[i][j], 1e-6) << i << j;
  // Row 0: softmax(1/sqrt2, 0); row 1: softmax(0, 4/sqrt2).
  const double p00 = 1 / (1 + std::exp(-1 / r2)), p11 = 1 / (1 + std::exp(-4 / r2));
  EXPECT_NEAR(t.probs[0][0][0][0].item<double>(), p00, 1e-6);
  EXPECT_NEAR(t.probs[0][0][0][1].item<double>(), 1 - p00, 1e-6);
  EXPECT_NEAR(t.probs[0][0][1][1].item<double>(), p11, 1e-6);
  EXPECT_FALSE(t.causal);
  EXPECT_FALSE(t.key_padding_mask.defined());
}

// The causal mask and a padded key take no probability; the logits are reported unmasked.
TEST(AttentionObserver, MaskedKeysHaveZeroProbability) {
  auto hooks = std::make_shared<ModelHooks>();
  RecordingObserver observer;
  hooks->observer = &observer;
  MultiheadAttention attention = identity_attention(hooks, /*fused=*/false);
  const torch::Tensor x = torch::tensor({1.0f, 0.0f, 0.0f, 2.0f, 1.0f, 1.0f}).view({1, 3, 2});
  const torch::Tensor pad = torch::tensor({false, false, true}).view({1, 3});
  attention(x, x, pad, /*causal=*/true);
  ASSERT_EQ(observer.seen.size(), 1u);
  const torch::Tensor probs = observer.seen[0].trace.probs[0][0];  // [T, S]
  EXPECT_NEAR(probs[0][0].item<double>(), 1.0, 1e-6);              // only itself is visible
  EXPECT_EQ(probs[0][1].item<double>(), 0.0);                      // the future
  EXPECT_EQ(probs[1][2].item<double>(), 0.0);                      // the future
  EXPECT_EQ(probs[2][2].item<double>(), 0.0);                      // padding
  EXPECT_NEAR(probs.sum(-1).sub(1).abs().max().item<double>(), 0.0, 1e-6);
  EXPECT_NEAR(observer.seen[0].trace.logits[0][0][2][2].item<double>(), 2 / std::sqrt(2.0),
              1e-6);  // x_2.x_2 / sqrt(2), unmasked
  EXPECT_TRUE(observer.seen[0].trace.causal);
}

RunConfig tiny_model(const std::string& connection, const std::string& fused) {
  RunConfig c;
  c.model.d_model = 16;
  c.model.heads = 2;
  c.model.d_ff = 32;
  c.model.encoder_layers = 2;
  c.model.decoder_layers = 3;
  c.model.dropout = 0.0;
  c.model.norm = "pre";
  c.model.connection = connection;
  c.model.fused_attention = fused;
  return c;
}

// Every attention sub-layer reports once per forward, in order, under its own name; the heads
// are the model's and each row of probabilities sums to 1.
TEST(AttentionObserver, EveryAttentionOfAModelReportsOncePerForward) {
  for (const std::string connection : {"residual", "depthwise_lstm"}) {
    SCOPED_TRACE(connection);
    Transformer model = build_model(tiny_model(connection, "off"), 11, /*seed=*/1);
    model->to(test_device());
    model->eval();
    RecordingObserver observer;
    model->hooks().observer = &observer;
    torch::manual_seed(2);
    const torch::Tensor src = torch::randint(4, 11, {2, 6}, torch::kLong).to(test_device());
    const torch::Tensor tgt = torch::randint(4, 11, {2, 4}, torch::kLong).to(test_device());
    torch::NoGradGuard no_grad;
    model->forward(src, tgt);
    model->hooks().observer = nullptr;
    std::vector<std::string> names;
    for (const auto& s : observer.seen) {
      names.push_back(s.id.name());
      EXPECT_EQ(s.trace.probs.size(1), 2) << s.id.name();
      EXPECT_NEAR(s.trace.probs.sum(-1).sub(1).abs().max().item<double>(), 0.0, 1e-5)
          << s.id.name();
      EXPECT_EQ(s.trace.causal,
                s.id.stack == Stack::Decoder && s.id.kind == SublayerKind::SelfAttention)
          << s.id.name();
    }
    const std::vector<std::string> expected{"enc.0.self_attn", "enc.1.self_attn", "dec.0.self_attn",
                                            "dec.0.enc_attn",  "dec.1.self_attn", "dec.1.enc_attn",
                                            "dec.2.self_attn", "dec.2.enc_attn"};
    EXPECT_EQ(names, expected);
  }
}

// Observing does not change what the model computes: with fused attention on (LibTorch >= 2.0:
// the fused kernel), the observed pass (explicit path) gives the same logits.
TEST(AttentionObserver, ObservingAFusedModelLeavesItsOutputs) {
  Transformer model = build_model(tiny_model("residual", "auto"), 11, /*seed=*/1);
  model->to(test_device());
  model->eval();
  torch::manual_seed(2);
  const torch::Tensor src = torch::randint(4, 11, {2, 6}, torch::kLong).to(test_device());
  const torch::Tensor tgt = torch::randint(4, 11, {2, 4}, torch::kLong).to(test_device());
  torch::NoGradGuard no_grad;
  const torch::Tensor plain = model->forward(src, tgt);
  RecordingObserver observer;
  model->hooks().observer = &observer;
  const torch::Tensor observed = model->forward(src, tgt);
  model->hooks().observer = nullptr;
  EXPECT_EQ(observer.seen.size(), 8u);
  EXPECT_LE((observed - plain).abs().max().item<double>(), 1e-5);
}

}  // namespace test_attention_observer
}  // namespace fathom
