// Gated attention (core/model/attention_gate.h; Qiu et al. 2025, arXiv 2505.06708): a
// two-token case worked by hand for both gate shapes and both attention paths; the gate's
// shapes and parameter count; a gate saturated at 1 giving the ungated model's outputs for every
// norm style, the decoder-only LM and the depth-wise LSTM; Admin's fold-back with a gate; and an
// unknown value refused by the config check.
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
#include "core/model/transformer.h"
#include "tests/support/trainer_test_fixture.h"

namespace fathom {
namespace test_attention_gate {
using testing::tiny_config;

double sig(double x) { return 1.0 / (1.0 + std::exp(-x)); }

struct Recorder : SublayerObserver {
  void on_attention(const SublayerId&, const AttentionTrace&) override { ++calls; }
  int calls = 0;
};

// d = 4, 2 heads (d_h = 2), Q = K = 0 so each query attends half to each of the two tokens, V and
// the output projection the identity: the heads' output is the mean of the inputs,
// m = ((1, 2, -1, 0) + (3, 0, 1, 2)) / 2 = (2, 1, 0, 1) at both tokens. Each token's gate reads
// that token's own input x_t.
torch::Tensor gated_output(const std::string& kind, const std::string& fused, bool observed) {
  ModelConfig config;
  config.d_model = 4;
  config.heads = 2;
  config.attention_dropout = 0;
  config.fused_attention = fused;
  config.attention_gate = kind;
  ParameterCatalog catalog;
  auto hooks = std::make_shared<ModelHooks>();
  Recorder recorder;
  if (observed) hooks->observer = &recorder;
  MultiheadAttention attention = make_attention(
      config, SublayerId{Stack::Encoder, 0, SublayerKind::SelfAttention, 0}, hooks, catalog);
  EXPECT_EQ(catalog.linears.back().name, "enc.0.self_attn.gate");
  EXPECT_EQ(catalog.linears.back().role, LinearRole::AttentionGate);
  torch::NoGradGuard no_grad;
  for (auto& p : attention->named_parameters()) {
    torch::Tensor& w = p.value();
    w.zero_();
    if (p.key() == "qkv.weight") w.narrow(0, 8, 4).copy_(torch::eye(4));  // V = identity
    if (p.key() == "out.weight") w.copy_(torch::eye(4));
    if (p.key() == "gate.projection.weight" && kind == "headwise") {
      w[0][0] = 1.0;  // head 0's gate reads x[0]
      w[1][2] = 1.0;  // head 1's reads x[2], bias 0.5
    }
    if (p.key() == "gate.projection.bias" && kind == "headwise") w[1] = 0.5;
    if (p.key() == "gate.projection.weight" && kind == "elementwise")
      w.copy_(torch::diag(torch::tensor({1.0f, -1.0f, 0.5f, 2.0f})));
  }
  attention->eval();
  const torch::Tensor x = torch::tensor({1.0f, 2.0f, -1.0f, 0.0f, 3.0f, 0.0f, 1.0f, 2.0f});
  torch::Tensor y = attention(x.view({1, 2, 4}), x.view({1, 2, 4}), torch::Tensor(), false);
  EXPECT_EQ(recorder.calls, observed ? 1 : 0);
  return y[0];
}

TEST(AttentionGate, HeadwiseGatesEachHeadByHand) {
  // Token 0: head 0 gate sigmoid(1), head 1 sigmoid(-1 + 0.5); token 1: sigmoid(3), sigmoid(1.5).
  const double expected[2][4] = {{2 * sig(1), sig(1), 0, sig(-0.5)},
                                 {2 * sig(3), sig(3), 0, sig(1.5)}};
  for (const std::string fused : {"off", "auto"})
    for (bool observed : {false, true}) {
      const torch::Tensor y = gated_output("headwise", fused, observed);
      for (int t = 0; t < 2; ++t)
        for (int j = 0; j < 4; ++j)
          EXPECT_NEAR(y[t][j].item<double>(), expected[t][j], 1e-6) << fused << observed << t << j;
    }
}

TEST(AttentionGate, ElementwiseGatesEachFeatureByHand) {
  // Gate sigmoid(diag(1, -1, 0.5, 2) x_t): token 0 (s(1), s(-2), s(-0.5), s(0)), token 1 (s(3),
  // s(0), s(0.5), s(4)), times m = (2, 1, 0, 1).
  const double expected[2][4] = {{2 * sig(1), sig(-2), 0, 0.5}, {2 * sig(3), 0.5, 0, sig(4)}};
  for (const std::string fused : {"off", "auto"})
    for (bool observed : {false, true}) {
      const torch::Tensor y = gated_output("elementwise", fused, observed);
      for (int t = 0; t < 2; ++t)
        for (int j = 0; j < 4; ++j)
          EXPECT_NEAR(y[t][j].item<double>(), expected[t][j], 1e-6) << fused << observed << t << j;
    }
}

// One gate per head is [B, T, H] from a [H, d] projection; one per feature [B, T, d] from
// [d, d]; each counts under attention in parameter_counts: per attention sub-layer H d + H or
// d d + d (tiny: d = 16, H = 2; one encoder and one decoder layer: 3 attention sub-layers).
TEST(AttentionGate, ShapesAndParameterCounts) {
  ParameterCatalog catalog;
  const SublayerId id{Stack::Decoder, 1, SublayerKind::EncoderAttention, 0};
  AttentionGate headwise(AttentionGateKind::Headwise, 16, 2, id, "a", catalog);
  AttentionGate elementwise(AttentionGateKind::Elementwise, 16, 2, id, "b", catalog);
  const torch::Tensor x = torch::randn({3, 5, 16});
  EXPECT_EQ(headwise->gate(x).sizes(), (std::vector<int64_t>{3, 5, 2}));
  EXPECT_EQ(elementwise->gate(x).sizes(), (std::vector<int64_t>{3, 5, 16}));
  EXPECT_EQ(headwise(x, x).sizes(), x.sizes());
  EXPECT_EQ(elementwise(x, x).sizes(), x.sizes());
  EXPECT_THROW(attention_gate_kind("both"), std::invalid_argument);

  auto attention_params = [](const std::string& gate) {
    RunConfig c = tiny_config();
    c.model.attention_gate = gate;
    const auto counts = build_model(c, 12, 1)->parameter_counts();
    return std::make_pair(counts.at("attention"), counts.at("other"));
  };
  const auto [none, other_none] = attention_params("none");
  EXPECT_EQ(attention_params("headwise").first - none, 3 * (16 * 2 + 2));
  EXPECT_EQ(attention_params("elementwise").first - none, 3 * (16 * 16 + 16));
  EXPECT_EQ(attention_params("elementwise").second, other_none);
}

// A gate bias of +40 saturates sigmoid at exactly 1.0f: the gated model computes what the
// ungated model with the same other parameters computes, for every norm style, initialization
// with a style of its own, the decoder-only LM and the depth-wise LSTM; in encoder attention
// the gate reads the decoder's side (a gate on the encoder output would fail the shapes, the
// source being longer than the target here).
TEST(AttentionGate, SaturatedGateIsTheUngatedModel) {
  struct Variant {
    std::string norm, init, arch, connection;
  };
  const std::vector<Variant> variants = {
      {"post", "xavier", "encoder_decoder", "residual"},
      {"pre", "xavier", "encoder_decoder", "residual"},
      {"peri", "xavier", "encoder_decoder", "residual"},
      {"mix", "xavier", "encoder_decoder", "residual"},
      {"lns", "xavier", "encoder_decoder", "residual"},
      {"dyt", "xavier", "encoder_decoder", "residual"},
      {"post", "admin", "encoder_decoder", "residual"},
      {"post", "deepnorm", "encoder_decoder", "residual"},
      {"pre", "rezero", "encoder_decoder", "residual"},
      {"pre", "xavier", "decoder_only", "residual"},
      {"post", "xavier", "decoder_only", "residual"},
      {"pre", "xavier", "encoder_decoder", "depthwise_lstm"},
  };
  torch::manual_seed(5);
  const torch::Tensor src = torch::randint(4, 12, {2, 7}, torch::kInt64);
  const torch::Tensor tgt = torch::randint(4, 12, {2, 5}, torch::kInt64);
  for (const auto& v : variants)
    for (const std::string gate : {"headwise", "elementwise"}) {
      SCOPED_TRACE(v.norm + " " + v.init + " " + v.arch + " " + v.connection + " " + gate);
      RunConfig c = tiny_config();
      c.model.norm = v.norm;
      c.model.init = v.init;
      c.model.arch = v.arch;
      c.model.connection = v.connection;
      c.model.encoder_layers = 2;
      c.model.decoder_layers = 2;
      c.model.fused_attention = "off";
      c.model.attention_gate = gate;
      Transformer gated = build_model(c, 12, 3);
      c.model.attention_gate = "none";
      Transformer plain = build_model(c, 12, 4);
      torch::NoGradGuard no_grad;
      auto source = gated->named_parameters();
      for (auto& p : plain->named_parameters()) p.value().copy_(*source.find(p.key()));
      for (auto& b : plain->named_buffers()) b.value().copy_(*gated->named_buffers().find(b.key()));
      int gates = 0;
      for (auto& l : gated->catalog().linears)
        if (l.role == LinearRole::AttentionGate) {
          l.linear->bias.fill_(40.0);
          ++gates;
        }
      EXPECT_EQ(gates, v.arch == "decoder_only" ? 2 : 2 + 2 * 2);
      gated->eval();
      plain->eval();
      const torch::Tensor a = v.arch == "decoder_only" ? gated->forward(torch::Tensor(), tgt)
                                                       : gated->forward(src, tgt);
      const torch::Tensor b = v.arch == "decoder_only" ? plain->forward(torch::Tensor(), tgt)
                                                       : plain->forward(src, tgt);
      EXPECT_LT((a - b).abs().max().item<double>(), 1e-5);
      // And a gate at its initial bias changes the output (ReZero's alpha = 0 at
      // initialization hides every branch, gated or not).
      if (v.init == "rezero") continue;
      for (auto& l : gated->catalog().linears)
        if (l.role == LinearRole::AttentionGate) l.linear->bias.zero_();
      const torch::Tensor half = v.arch == "decoder_only" ? gated->forward(torch::Tensor(), tgt)
                                                          : gated->forward(src, tgt);
      EXPECT_GT((half - b).abs().max().item<double>(), 1e-3);
    }
}

// Admin's fold-back divides the input columns of every projection that reads x_{k-1} by omega_k:
// the gate reads it too, so the folded gated model computes the same function.
TEST(AttentionGate, AdminFoldBackKeepsTheGatedFunction) {
  RunConfig c = tiny_config();
  c.model.init = "admin";
  c.model.encoder_layers = 2;
  c.model.decoder_layers = 2;
  c.model.attention_gate = "elementwise";
  Transformer admin = build_model(c, 12, 21);
  {
    torch::NoGradGuard no_grad;
    torch::manual_seed(4);
    for (auto& o : admin_omegas(*admin))
      if (o.id.index > 0) o.omega.uniform_(0.5, 3.0);
    for (auto& l : admin->catalog().linears) l.linear->bias.uniform_(-0.2, 0.2);
  }
  Transformer folded = fold_admin(*admin);
  admin->eval();
  folded->eval();
  torch::NoGradGuard no_grad;
  const torch::Tensor src = torch::randint(4, 12, {2, 7}, torch::kInt64);
  const torch::Tensor tgt = torch::randint(4, 12, {2, 5}, torch::kInt64);
  const torch::Tensor a = admin->forward(src, tgt), f = folded->forward(src, tgt);
  EXPECT_LT((a - f).abs().max().item<double>(), 1e-4 * std::max(1.0, a.abs().max().item<double>()));
}

TEST(AttentionGate, UnknownValueIsRefusedNamingTheField) {
  try {
    check_config(load_config_string("model:\n  attention_gate: both\n", "gate.yaml", ""));
    FAIL() << "accepted attention_gate: both";
  } catch (const std::exception& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("gate.yaml"), std::string::npos) << what;
    EXPECT_NE(what.find("attention_gate"), std::string::npos) << what;
    EXPECT_NE(what.find("headwise"), std::string::npos) << what;
  }
}

}  // namespace test_attention_gate
}  // namespace fathom
