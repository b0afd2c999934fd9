// Hyper-connections (core/model/hyper_connection.h; Zhu et al. 2024, DeepSeek mHC 2025):
// Sinkhorn-Knopp worked by hand and its rows and columns summing to 1, its fused CPU path
// against autograd through tensor ops and finite differences; the composite mixing
// gain on hand-built matrices, directly and as the training probe records it; one stream at
// the initial mixing giving the Pre-LN residual model's outputs; mhc's mixing doubly
// stochastic inside a model, so its composite gain is 1; and the combinations refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "base/config/config_io.h"
#include "core/model/higher_order_grad.h"
#include "core/model/hyper_connection.h"
#include "core/model/registry.h"
#include "core/model/transformer.h"
#include "core/train/probe_observer.h"
#include "tests/support/trainer_test_fixture.h"

namespace fathom {
namespace test_hyper_connection {
using testing::tiny_config;
using testing::TrainerTest;

TEST(HyperConnection, SinkhornOfATwoByTwoMatchesItsClosedForm) {
  // [[a, b], [c, d]] scaled to doubly stochastic [[x, 1-x], [1-x, x]] keeps the cross ratio:
  // (x / (1-x))^2 = ad / (bc), so x = sqrt(ad) / (sqrt(ad) + sqrt(bc)) = 2 / (2 + sqrt 6)
  // for a, b, c, d = 1, 2, 3, 4.
  const torch::Tensor m =
      sinkhorn_knopp(torch::tensor({1.0, 2.0, 3.0, 4.0}, torch::kDouble).log().view({2, 2}));
  const double x = 2.0 / (2.0 + std::sqrt(6.0));
  EXPECT_NEAR(m[0][0].item<double>(), x, 1e-9);
  EXPECT_NEAR(m[0][1].item<double>(), 1 - x, 1e-9);
  EXPECT_NEAR(m[1][0].item<double>(), 1 - x, 1e-9);
  EXPECT_NEAR(m[1][1].item<double>(), x, 1e-9);
}

TEST(HyperConnection, SinkhornRowsAndColumnsSumToOne) {
  // Columns are normalized last, so they sum to 1 to rounding; rows to within what 20
  // iterations reach: 1e-5 for logits of standard deviation 1/2 (the scale near
  // initialization), but only ~2e-2 at standard deviation 2 (measured: 0.020 worst over 900
  // matrices of n = 2, 4, 6), which more iterations shrink -- the finite-iteration gap of mHC.
  torch::manual_seed(3);
  for (const int64_t n : {1, 2, 4, 6})
    for (const double sd : {0.5, 2.0}) {
      const torch::Tensor logits = sd * torch::randn({5, 3, n, n});  // a batch of matrices
      const torch::Tensor ones = torch::ones({5, 3, n});
      const torch::Tensor m = sinkhorn_knopp(logits);
      EXPECT_TRUE(torch::allclose(m.sum(-2), ones, 0, 1e-6)) << n;  // columns
      EXPECT_TRUE(torch::allclose(m.sum(-1), ones, 0, sd < 1 ? 1e-5 : 5e-2)) << n << " " << sd;
      const double gap = (m.sum(-1) - 1).abs().max().item<double>();
      const double gap200 = (sinkhorn_knopp(logits, 200).sum(-1) - 1).abs().max().item<double>();
      EXPECT_LE(gap200, std::max(gap / 4, 1e-6)) << n << " " << sd;  // more iterations close it
      EXPECT_GE(m.min().item<double>(), 0.0);
    }
  // Large logits do not overflow: the result is the same as for the logits shifted down.
  const torch::Tensor big = torch::tensor({500.0, 499.0, 498.0, 500.0}).view({2, 2});
  EXPECT_TRUE(torch::allclose(sinkhorn_knopp(big), sinkhorn_knopp(big - 500.0), 0, 1e-6));
}

// The fused CPU path (one loop per matrix, its own backward) against the tensor operations
// differentiated by autograd, forward and gradient, in float and double; and its gradient
// against central finite differences in double.
TEST(HyperConnection, FusedSinkhornEqualsTheTensorOpsForwardAndBackward) {
  torch::manual_seed(5);
  for (const auto dtype : {torch::kFloat, torch::kDouble})
    for (const int64_t n : {1, 2, 4, 6})
      for (const double sd : {0.5, 2.0}) {
        const auto options = torch::TensorOptions().dtype(dtype);
        const torch::Tensor logits = sd * torch::randn({7, 3, n, n}, options);
        const torch::Tensor weights = torch::randn({7, 3, n, n}, options);
        const torch::Tensor a = logits.clone().requires_grad_(true);
        const torch::Tensor b = logits.clone().requires_grad_(true);
        const torch::Tensor fused = sinkhorn_knopp(a), ops = sinkhorn_knopp_ops(b);
        (fused * weights).sum().backward();
        (ops * weights).sum().backward();
        const double tol = dtype == torch::kFloat ? 1e-5 : 1e-12;
        EXPECT_TRUE(torch::allclose(fused, ops, tol, tol)) << n << " " << sd;
        EXPECT_TRUE(torch::allclose(a.grad(), b.grad(), 10 * tol, 10 * tol))
            << n << " " << sd << " " << (a.grad() - b.grad()).abs().max();
      }
  const torch::Tensor logits = torch::randn({4, 4}, torch::kDouble);
  const torch::Tensor weights = torch::randn({4, 4}, torch::kDouble);
  const torch::Tensor x = logits.clone().requires_grad_(true);
  (sinkhorn_knopp(x) * weights).sum().backward();
  const double h = 1e-6;
  for (int64_t k = 0; k < 16; ++k) {
    torch::Tensor up = logits.clone(), down = logits.clone();
    up.view(-1)[k] += h;
    down.view(-1)[k] -= h;
    const double numeric =
        ((sinkhorn_knopp(up) - sinkhorn_knopp(down)) * weights).sum().item<double>() / (2 * h);
    EXPECT_NEAR(x.grad().view(-1)[k].item<double>(), numeric, 1e-7) << k;
  }
}

// Reading and mixing the streams in one loop over the tokens: the tensor operations' values and
// gradients (of every input), in float and double, from contiguous streams and from the
// embedding expanded into them, with d a multiple of the dot products' 8 lanes and not.
TEST(HyperConnection, StreamLoopsEqualTheTensorOperations) {
  torch::manual_seed(6);
  for (const auto dtype : {torch::kFloat, torch::kDouble})
    for (const bool expanded : {false, true})
      for (const int64_t d : {8, 13}) {
        SCOPED_TRACE(std::string(dtype == torch::kFloat ? "float" : "double") +
                     (expanded ? " expanded" : "") + " d=" + std::to_string(d));
        const auto options = torch::TensorOptions().dtype(dtype);
        const torch::Tensor streams = expanded
                                          ? torch::randn({3, 5, 1, d}, options).expand({3, 5, 4, d})
                                          : torch::randn({3, 5, 4, d}, options);
        // mix transposed, as the hyper variant passes it: not contiguous.
        const std::vector<torch::Tensor> inputs = {
            torch::randn({3, 5, 4, 4}, options).transpose(-1, -2), streams,
            torch::randn({3, 5, 4}, options), torch::randn({3, 5, d}, options),
            torch::randn({3, 5, 4}, options)};
        std::vector<torch::Tensor> loop, ops;
        for (const torch::Tensor& t : inputs) {
          loop.push_back(t.detach().requires_grad_(true));
          ops.push_back(t.detach().clone().requires_grad_(true));
        }
        const torch::Tensor mixed = mix_streams(loop[0], loop[1], loop[2], loop[3]);
        const torch::Tensor mixed_ops =
            ops[0].matmul(ops[1]) + ops[2].unsqueeze(-1) * ops[3].unsqueeze(-2);
        const torch::Tensor read = read_streams(loop[4], loop[1]);
        const torch::Tensor read_ops = (ops[4].unsqueeze(-1) * ops[1]).sum(-2);
        const double tol = dtype == torch::kFloat ? 1e-5 : 1e-12;
        EXPECT_TRUE(torch::allclose(mixed, mixed_ops, tol, tol));
        EXPECT_TRUE(torch::allclose(read, read_ops, tol, tol));
        const torch::Tensor g = torch::randn_like(mixed), h = torch::randn_like(read);
        ((mixed * g).sum() + (read * h).sum()).backward();
        ((mixed_ops * g).sum() + (read_ops * h).sum()).backward();
        for (size_t i = 0; i < inputs.size(); ++i)
          EXPECT_TRUE(torch::allclose(loop[i].grad(), ops[i].grad(), tol, tol)) << "input " << i;
      }
}

// Inside a HigherOrderGradScope both take the tensor operations, whose gradient can be
// differentiated again: a second derivative through the loops would be silently zero.
TEST(HyperConnection, StreamLoopsGiveWayToTensorOpsForSecondDerivatives) {
  torch::manual_seed(7);
  const torch::Tensor read = torch::randn({2, 3}, torch::kDouble).requires_grad_(true);
  const torch::Tensor streams = torch::randn({2, 3, 5}, torch::kDouble);
  const HigherOrderGradScope scope;
  // y = sum (r . h)^2: d2y/dr_j dr_k = 2 sum_tokens... per token 2 h_j . h_k summed over d.
  const torch::Tensor y = read_streams(read, streams).pow(2).sum();
  const torch::Tensor g = torch::autograd::grad({y}, {read}, {}, true, true)[0];
  const torch::Tensor row0 = torch::autograd::grad({g.select(1, 0).sum()}, {read})[0];
  const torch::Tensor expected = 2 * (streams.select(1, 0).unsqueeze(1) * streams).sum(-1);
  EXPECT_TRUE(torch::allclose(row0, expected, 1e-12, 1e-12)) << row0 << expected;
}

// M1 = [[1, .5], [0, 1]], M2 = [[2, 0], [0, 1]], M3 = [[1, -1], [0, 1]]:
//   P1 = M1             rows 1.5, 1   -> forward 1.5; columns 1, 1.5 -> backward 1.5
//   P2 = M2 P1 = [[2, 1], [0, 1]]     rows 3, 1 -> 3;  columns 2, 2 -> 2
//   P3 = M3 P2 = [[2, 0], [0, 1]]     rows 2, 1 -> 2;  columns 2, 1 -> 2
std::vector<torch::Tensor> hand_mixings() {
  return {torch::tensor({1.0f, 0.5f, 0.0f, 1.0f}).view({2, 2}),
          torch::tensor({2.0f, 0.0f, 0.0f, 1.0f}).view({2, 2}),
          torch::tensor({1.0f, -1.0f, 0.0f, 1.0f}).view({2, 2})};
}
const double kForward[] = {1.5, 3, 2}, kBackward[] = {1.5, 2, 2};

TEST(HyperConnection, CompositeMixingGainByHand) {
  const auto gains = composite_mixing_gains(hand_mixings());
  ASSERT_EQ(gains.size(), 3u);
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_DOUBLE_EQ(gains[k].forward.item<double>(), kForward[k]) << k;
    EXPECT_DOUBLE_EQ(gains[k].backward.item<double>(), kBackward[k]) << k;
  }
}

TEST(HyperConnection, TheProbeRecordsTheCompositeGainOverRealTokens) {
  // Two tokens: token 0 gets the hand mixings, token 1 is padding and gets 10x them (left out).
  const torch::Tensor valid = torch::tensor({true, false}).view({1, 2});
  ProbeObserver probe(valid, valid);
  const auto mixings = hand_mixings();
  for (int k = 0; k < 3; ++k) {
    const SublayerId id{Stack::Encoder, k / 2,
                        k % 2 ? SublayerKind::FeedForward : SublayerKind::SelfAttention, k};
    probe.on_stream_mixing(id, torch::stack({mixings[k], 10 * mixings[k]}).view({1, 2, 2, 2}),
                           torch::ones({1, 2, 2}));
  }
  for (const auto& v : probe.values()) {
    if (v.probe != "hc.gain" && v.probe != "hc.gain_backward") continue;
    ASSERT_EQ(v.positions,
              (std::vector<std::string>{"enc.0.self_attn", "enc.0.ffn", "enc.1.self_attn"}));
    for (size_t k = 0; k < 3; ++k)
      EXPECT_FLOAT_EQ(v.values[k], v.probe == "hc.gain" ? kForward[k] : kBackward[k]);
  }
  EXPECT_EQ(probe.values().size(), 2u);
}

RunConfig hyper_config(const std::string& connection, int streams, const std::string& arch) {
  RunConfig c = tiny_config();
  c.model.arch = arch;
  c.model.norm = "pre";
  c.model.encoder_layers = 2;
  c.model.decoder_layers = 2;
  c.model.connection = connection;
  c.model.hc_streams = streams;
  return c;
}

torch::Tensor run(Transformer& model, const RunConfig& c) {
  torch::manual_seed(11);
  const torch::Tensor src = torch::randint(4, 12, {2, 6}, torch::kInt64);
  const torch::Tensor tgt = torch::randint(4, 12, {2, 5}, torch::kInt64);
  return is_decoder_only(c.model) ? model->forward(torch::Tensor(), tgt) : model->forward(src, tgt);
}

TEST(HyperConnection, OneStreamAtTheInitialMixingIsThePreLnResidualModel) {
  for (const std::string arch : {"encoder_decoder", "decoder_only"}) {
    RunConfig plain_config = hyper_config("residual", 0, arch);
    RunConfig hc_config = hyper_config("hyper", 1, arch);
    Transformer plain = build_model(plain_config, 12, 5), hc = build_model(hc_config, 12, 5);
    torch::NoGradGuard no_grad;
    // The residual model's parameters into the same modules of the hyper one (its final norm
    // sits one module deeper, after the streams' sum); hc_* are the connection's own.
    auto plain_params = plain->named_parameters();
    size_t copied = 0;
    for (auto& p : hc->named_parameters()) {
      std::string name = p.key();
      const size_t at = name.find("_final_norm.norm.");
      if (at != std::string::npos) name.replace(at, 17, "_final_norm.");
      if (const torch::Tensor* source = plain_params.find(name)) {
        p.value().copy_(*source);
        ++copied;
      }
    }
    EXPECT_EQ(copied, plain_params.size()) << arch;
    plain->eval();
    hc->eval();
    const torch::Tensor a = run(plain, plain_config), b = run(hc, hc_config);
    EXPECT_TRUE(torch::allclose(a, b, 1e-5, 1e-6)) << arch << " " << (a - b).abs().max();
    // The dynamic weights do take part: non-zero ones change the output.
    for (auto& p : hc->named_parameters())
      if (p.key().find("hc_dynamic") != std::string::npos) p.value().normal_(0.0, 3.0);
    EXPECT_FALSE(torch::allclose(a, run(hc, hc_config), 1e-5, 1e-6)) << arch;
  }
}

struct MixingRecorder : SublayerObserver {
  void on_stream_mixing(const SublayerId&, const torch::Tensor& m, const torch::Tensor&) override {
    mixings.push_back(m.clone());
  }
  std::vector<torch::Tensor> mixings;
};

TEST(HyperConnection, MhcMixingIsDoublyStochasticSoItsCompositeGainIsOne) {
  RunConfig c = hyper_config("mhc", 4, "encoder_decoder");
  Transformer model = build_model(c, 12, 2);
  torch::NoGradGuard no_grad;
  for (auto& p : model->named_parameters())  // away from the initial uniform mixing
    if (p.key().find("hc_") != std::string::npos) p.value().normal_(0.0, 0.5);
  model->eval();
  MixingRecorder recorder;
  model->hooks().observer = &recorder;
  const torch::Tensor out = run(model, c);
  EXPECT_TRUE(torch::isfinite(out).all().item<bool>());
  ASSERT_EQ(recorder.mixings.size(), 2u * 2 + 3u * 2);  // every sub-layer of both stacks
  std::vector<torch::Tensor> encoder(recorder.mixings.begin(), recorder.mixings.begin() + 4);
  for (const auto& m : recorder.mixings) {
    EXPECT_EQ(m.size(-1), 4);
    EXPECT_TRUE(torch::allclose(m.sum(-2), torch::ones_like(m.sum(-2)), 0, 1e-5));
    EXPECT_TRUE(torch::allclose(m.sum(-1), torch::ones_like(m.sum(-1)), 0, 1e-3));
    EXPECT_GT((m - 0.25).abs().max().item<double>(), 0.01);  // not the uniform matrix
  }
  for (const auto& gain : composite_mixing_gains(encoder))
    EXPECT_NEAR(gain.forward.max().item<double>(), 1.0, 1e-3);
  // hyper's unconstrained mixing, pushed the same way, amplifies.
  RunConfig h = hyper_config("hyper", 4, "encoder_decoder");
  Transformer free = build_model(h, 12, 2);
  for (auto& p : free->named_parameters())
    if (p.key().find("hc_mix") != std::string::npos) p.value().uniform_(0.5, 1.0);
  free->eval();
  MixingRecorder free_recorder;
  free->hooks().observer = &free_recorder;
  run(free, h);
  std::vector<torch::Tensor> free_encoder(free_recorder.mixings.begin(),
                                          free_recorder.mixings.begin() + 4);
  EXPECT_GT(composite_mixing_gains(free_encoder).back().forward.max().item<double>(), 4.0);
}

TEST(HyperConnection, FourStreamsReachEveryStaticAndDynamicWeight) {
  // At initialization W = 0, so d/ds of s * tanh(LN(H) W) is tanh(0) = 0: the gates s_a, s_b
  // and the stream norm get no gradient yet; the static maps and W do (W through s = 0.01).
  RunConfig c = hyper_config("hyper", 4, "decoder_only");
  Transformer model = build_model(c, 12, 3);
  model->train();
  run(model, c).logsumexp(-1).mean().backward();
  int hc_params = 0;
  for (const auto& p : model->named_parameters())
    if (p.key().find("hc_") != std::string::npos) {
      ++hc_params;
      ASSERT_TRUE(p.value().grad().defined()) << p.key();
      const double g = p.value().grad().abs().sum().item<double>();
      const bool still = p.key().find("hc_gate") != std::string::npos ||
                         p.key().find("hc_stream_norm") != std::string::npos;
      if (still)
        EXPECT_EQ(g, 0.0) << p.key();
      else
        EXPECT_GT(g, 0.0) << p.key();
    }
  EXPECT_EQ(hc_params, 2 * 2 * 8);  // 2 layers x 2 sub-layers x 8 tensors
}

// Through the trainer: mhc with 2 streams trains, and the probes record both gains at every
// sub-layer; after 25 updates of small logits the mixing is doubly stochastic to within
// Sinkhorn's convergence, so the composite gain stays 1.
TEST_F(TrainerTest, MhcTrainsAndItsProbesRecordTheCompositeGain) {
  RunConfig config = hyper_config("mhc", 2, "encoder_decoder");
  config.model.encoder_layers = 1;
  config.model.decoder_layers = 1;
  config.train.probe_every = 5;
  config.train.probe_sentences = 8;
  const int64_t run = new_run(config);
  ASSERT_EQ(train(config, run).status, "finished");
  for (const std::string probe : {"hc.gain", "hc.gain_backward"}) {
    const db::ProbeSeries s = store_->probe_series(run, probe);
    EXPECT_EQ(s.positions,
              (std::vector<std::string>{"enc.0.self_attn", "enc.0.ffn", "dec.0.self_attn",
                                        "dec.0.enc_attn", "dec.0.ffn"}));
    EXPECT_EQ(s.steps, (std::vector<int64_t>{5, 10, 15, 20, 25}));
    for (const auto& row : s.values)
      for (float v : row) EXPECT_NEAR(v, 1.0f, 1e-3f) << probe;
  }
}

void expect_refused(const std::string& yaml, const std::string& key, const std::string& word) {
  try {
    check_model_methods(load_config_string(yaml, "hc.yaml", "."));
    FAIL() << "accepted:\n" << yaml;
  } catch (const std::exception& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("hc.yaml"), std::string::npos) << what;
    EXPECT_NE(what.find(key), std::string::npos) << what;
    EXPECT_NE(what.find(word), std::string::npos) << what;
  }
}

TEST(HyperConnection, CombinationsItCannotTakeAreRefused) {
  expect_refused("model:\n  connection: depthwise_lstm\n  hc_streams: 4\n", "model.hc_streams",
                 "depthwise_lstm");
  expect_refused("model:\n  hc_streams: 2\n", "model.hc_streams", "residual");
  // No stream count given: the line that asked for streams is named; a count of 0, its own.
  expect_refused("model:\n  connection: hyper\n  norm: pre\n", "hc.yaml:2: 'model.connection'",
                 "needs model.hc_streams: n >= 1 residual streams (not set: 0)");
  expect_refused("model:\n  connection: hyper\n  hc_streams: 0\n  norm: pre\n",
                 "hc.yaml:3: 'model.hc_streams'", "n >= 1");
  expect_refused("model:\n  connection: mhc\n  hc_streams: 4\n", "model.norm", "Pre-LN");
  expect_refused(
      "model:\n  connection: mhc\n  hc_streams: 4\n  norm: pre\n  parameterization: "
      "completep\n",
      "model.connection", "residual");
  EXPECT_NO_THROW(check_model_methods(load_config_string(
      "model:\n  connection: mhc\n  hc_streams: 4\n  norm: pre\n", "ok.yaml", ".")));
}

}  // namespace test_hyper_connection
}  // namespace fathom
