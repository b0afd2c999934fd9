// The decoder-only model (model.arch: decoder_only; issue 39 item 1): one causal stack of
// self-attention + FFN layers with one embedding tied to the output projection, held to the
// plain-tensor reference (tests/support/model_reference.h) for every norm style and 1-3
// layers; causality; a parameter count worked by hand; DeepNorm's decoder-only constants;
// Admin profiling over one stack; the depth-wise LSTM connection; every init; the keys a
// decoder-only config refuses; and the analyses that read the one stack (beta, grad-norms).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "analysis/beta.h"
#include "analysis/grad_norms.h"
#include "base/config/config.h"
#include "base/config/config_io.h"
#include "core/data/batch.h"
#include "core/model/admin.h"
#include "core/model/deepnorm.h"
#include "core/model/transformer.h"
#include "tests/support/config_test_helpers.h"
#include "tests/support/input_error.h"
#include "tests/support/model_reference.h"

namespace fathom {
namespace test_decoder_only {
using namespace fathom::model_reference;
using testing::expect_input_error;

RunConfig lm_config(const std::string& norm, int layers, double dropout = 0.0) {
  RunConfig c = tiny_config(norm, 1, layers, dropout);
  c.model.arch = "decoder_only";
  return c;
}

// Logits of the reference language model: y = E[tokens] sqrt(d) + positions, then each layer's
// causal self-attention and FFN sub-layers by the style's formula, the final norm, y @ E^T.
torch::Tensor ref_language_model(const Params& P, const std::string& norm, int layers,
                                 const torch::Tensor& tokens) {
  const torch::Tensor E = P("embedding");
  torch::Tensor y = ref_embed(E, tokens);
  for (int l = 0; l < layers; ++l) {
    const std::string L = "decoder.layer" + std::to_string(l);
    y = ref_sublayer(P, norm, l + 1, layers, L + "_self_attn_connection", y,
                     [&](const torch::Tensor& h) {
                       return ref_self_attention(P, L + "_self_attn", h, torch::Tensor(), true);
                     });
    y = ref_sublayer(P, norm, l + 1, layers, L + "_ffn_connection", y,
                     [&](const torch::Tensor& h) { return ref_ffn(P, L + "_ffn", h); });
  }
  y = ref_final(P, norm, layers, "decoder.decoder_final_norm", y);
  return torch::matmul(y, E.t());
}

TEST(DecoderOnly, MatchesHandWrittenReference) {
  for (const std::string& norm : kNorms) {
    for (int layers : {1, 2, 3}) {
      SCOPED_TRACE(norm + " layers " + std::to_string(layers));
      Transformer model = build_model(lm_config(norm, layers), kVocab, 7);
      perturb(model, 200 + layers);
      model->eval();
      torch::NoGradGuard no_grad;
      const Params P(model);
      const torch::Tensor tokens = sample_target_in();
      const torch::Tensor logits = model->forward(torch::Tensor(), tokens);
      const torch::Tensor want = ref_language_model(P, norm, layers, tokens);
      ASSERT_EQ(logits.sizes(), (std::vector<int64_t>{2, 5, kVocab}));
      EXPECT_LT(max_abs_diff(logits, want), 1e-4 * (1 + want.abs().max().item<double>()));
    }
  }
}

// No encoder, no second embedding; the layers' sub-layers are numbered 2 a layer in the
// decoder ("dec.1.ffn" is sub-layer 3); encode() is refused.
TEST(DecoderOnly, HasOneStackAndOneEmbedding) {
  Transformer model = build_model(lm_config("pre", 2), kVocab, 1);
  for (const auto& p : model->named_parameters()) {
    EXPECT_EQ(p.key().find("encoder"), std::string::npos) << p.key();
    EXPECT_EQ(p.key().find("source"), std::string::npos) << p.key();
  }
  ASSERT_EQ(model->catalog().embeddings.size(), 1u);
  bool found = false;
  for (const auto& l : model->catalog().linears) {
    EXPECT_EQ(l.owner.stack, Stack::Decoder) << l.name;
    EXPECT_NE(l.owner.kind, SublayerKind::EncoderAttention) << l.name;
    if (l.name == "dec.1.ffn.fc1") {
      EXPECT_EQ(l.owner.index, 3);
      found = true;
    }
  }
  EXPECT_TRUE(found);
  EXPECT_THROW(model->encode(sample_source()), std::logic_error);
}

// Position t's logits depend on tokens <= t only, for the residual and the depth-wise LSTM
// stacks, with padding at the end of row 1 and dropout configured (eval disables it).
TEST(DecoderOnly, IsCausal) {
  for (const std::string connection : {"residual", "depthwise_lstm"}) {
    SCOPED_TRACE(connection);
    RunConfig config = lm_config("pre", 2, /*dropout=*/0.1);
    config.model.connection = connection;
    Transformer model = build_model(config, kVocab, 3);
    model->eval();
    torch::NoGradGuard no_grad;
    const torch::Tensor tokens = sample_target_in();
    const torch::Tensor base = model->forward(torch::Tensor(), tokens);
    for (int64_t t = 1; t < tokens.size(1); ++t) {
      torch::Tensor changed = tokens.clone();
      changed[0][t] = 1 + (changed[0][t].item<int64_t>() + 4) % (kVocab - 1);
      const torch::Tensor logits = model->forward(torch::Tensor(), changed);
      EXPECT_LT(max_abs_diff(logits[0].slice(0, 0, t), base[0].slice(0, 0, t)), 1e-6) << t;
      EXPECT_GT(max_abs_diff(logits[0][t], base[0][t]), 1e-4) << t;
      EXPECT_LT(max_abs_diff(logits[1], base[1]), 1e-6) << t;
    }
  }
}

// By hand, d = 16, d_ff = 32, V = 20, Post-LN, 2 layers: attention 4d^2 + 4d = 1,088, FFN
// 2 d d_ff + d + d_ff = 1,072, two LayerNorms 4d = 64: 2,224 a layer; the embedding V d = 320
// (tied: counted once); no final norm after Post-LN. 2 x 2,224 + 320 = 4,768.
TEST(DecoderOnly, ParameterCountWorkedByHand) {
  Transformer model = build_model(lm_config("post", 2), kVocab, 1);
  const auto counts = model->parameter_counts();
  EXPECT_EQ(counts.at("total"), 4768);
  EXPECT_EQ(counts.at("embeddings"), 320);
  int64_t elements = 0;
  for (const auto& p : model->parameters()) elements += p.numel();
  EXPECT_EQ(elements, 4768);
}

// DeepNet (Wang et al. 2022) for a decoder-only model of M layers: alpha = (2M)^(1/4),
// beta = (8M)^(-1/4); M = 2: alpha = 4^(1/4) = sqrt(2), beta = 16^(-1/4) = 1/2. The FFN
// weights of a deepnorm model are the Xavier draws scaled by beta.
TEST(DecoderOnly, DeepNormUsesTheDecoderOnlyConstants) {
  const DeepNormConstants c = deepnorm_constants(Stack::Decoder, 0, 2);
  EXPECT_NEAR(c.alpha, std::sqrt(2.0), 1e-12);
  EXPECT_NEAR(c.beta, 0.5, 1e-12);
  RunConfig config = lm_config("post", 2);
  config.model.init = "deepnorm";
  Transformer deepnorm = build_model(config, kVocab, 5);
  RunConfig plain_config = lm_config("post", 2);
  Transformer xavier = build_model(plain_config, kVocab, 5);
  const Params deep(deepnorm), plain(xavier);
  const std::string fc1 = "decoder.layer1_ffn.fc1.weight";
  EXPECT_TRUE(torch::allclose(deep(fc1), 0.5 * plain(fc1), 1e-6, 1e-7));
}

// Admin profiles the one stack: no encoder values, 2M decoder values starting at 1, and the
// profile applies back onto a fresh model.
TEST(DecoderOnly, AdminProfilesOneStack) {
  RunConfig config = lm_config("post", 3);
  config.model.init = "admin";
  Transformer model = build_model(config, kVocab, 2);
  const AdminProfile profile = profile_admin(*model, torch::Tensor(), sample_target_in());
  EXPECT_TRUE(profile.encoder.empty());
  ASSERT_EQ(profile.decoder.size(), 6u);
  EXPECT_DOUBLE_EQ(profile.decoder[0], 1.0);
  for (size_t k = 1; k < profile.decoder.size(); ++k)
    EXPECT_TRUE(profile.decoder[k] > 0 && std::isfinite(profile.decoder[k])) << k;
  EXPECT_NE(profile.decoder.back(), 1.0);  // profiled, not left at the init's 1
  Transformer fresh = build_model(config, kVocab, 2);
  apply_admin_profile(*fresh, profile);
  const auto omegas = admin_omegas(*fresh);
  ASSERT_EQ(omegas.size(), 6u);
  for (const auto& o : omegas)
    EXPECT_FLOAT_EQ(o.omega[0].item<float>(), static_cast<float>(profile.decoder[o.id.index]));
}

// Every init builds a decoder-only model whose forward is finite.
TEST(DecoderOnly, EveryInitBuilds) {
  for (const std::string init :
       {"xavier", "lipschitz", "ds_init", "rezero", "rezero_postln", "deepnorm", "admin"}) {
    SCOPED_TRACE(init);
    RunConfig config = lm_config("post", 2);
    config.model.init = init;
    Transformer model = build_model(config, kVocab, 4);
    model->eval();
    torch::NoGradGuard no_grad;
    EXPECT_TRUE(
        torch::isfinite(model->forward(torch::Tensor(), sample_target_in())).all().item<bool>());
  }
}

// Keys that shape an encoder mean nothing here and are refused with their line; an untied
// output projection too. A decoder-only config written out whole reads back.
TEST(DecoderOnly, EncoderKeysAreRefused) {
  const RunConfig given = testing::synthetic_config(
      {"model:", "  arch: decoder_only", "  decoder_layers: 2", "  encoder_layers: 4"});
  const InputError e = expect_input_error([&] { check_config(given); });
  EXPECT_EQ(e.field(), "model.encoder_layers");
  EXPECT_EQ(e.line(), 6);
  RunConfig untied = lm_config("pre", 2);
  untied.model.tie_decoder_embeddings = false;
  EXPECT_EQ(expect_input_error([&] { check_config(untied); }).field(),
            "model.tie_decoder_embeddings");
  check_config(testing::synthetic_config({"model:", "  arch: decoder_only"}));  // valid
  // Written out whole (a run's stored config names every key with its default) and read back:
  // accepted, as the worker that trains it reads it.
  const RunConfig whole = testing::synthetic_config({"model:", "  arch: decoder_only"});
  check_config(load_config_string(config_to_yaml(whole), "run 1 config", ""));
}

// A batch of two language-model sequences (no source side), the second padded.
Batch lm_batch() {
  const std::vector<Example> examples{{{}, {5, 9, 4, 11, 7, kEosId}}, {{}, {8, 6, 13, kEosId}}};
  return collate(examples, {0, 1});
}

// beta over the one stack (Admin s4.1, methods.md s5.1): no encoder matrix; 2M rows, one per
// sub-layer "dec.l.self_attn", "dec.l.ffn", and M + 1 + ... columns from the embedding on;
// each row's shares are 0 after its own branch, positive for its own branch, and their
// squares sum to sum_sq, near 1 at initialization (uncorrelated components) -- the invariants
// the encoder-decoder test holds beta to.
TEST(DecoderOnly, BetaReadsTheOneStack) {
  for (const std::string norm : {"post", "pre"}) {
    SCOPED_TRACE(norm);
    Transformer model = build_model(lm_config(norm, 3), kVocab, 6);
    const analysis::BetaResult r = analysis::compute_beta(*model, lm_batch());
    EXPECT_TRUE(r.encoder.rows.empty());
    const analysis::BetaMatrix& m = r.decoder;
    ASSERT_EQ(m.rows.size(), 6u);
    ASSERT_EQ(m.labels.size(), 7u);
    EXPECT_EQ(m.rows[0], "dec.0.self_attn");
    EXPECT_EQ(m.rows[5], "dec.2.ffn");
    for (size_t i = 0; i < m.rows.size(); ++i) {
      double squares = 0;
      for (size_t j = 0; j < m.beta[i].size(); ++j) {
        squares += m.beta[i][j] * m.beta[i][j];
        if (j > i + 1) {
          EXPECT_EQ(m.beta[i][j], 0.0) << i << "," << j;
        }
      }
      EXPECT_NEAR(m.sum_sq[i], squares, 1e-12) << m.rows[i];
      EXPECT_GT(m.beta[i][i + 1], 0.0) << m.rows[i];
      EXPECT_GT(m.sum_sq[i], 0.3) << m.rows[i];
      EXPECT_LT(m.sum_sq[i], 3.0) << m.rows[i];
    }
  }
}

// Gradient norms of every sub-layer output: the decoder's 2M, in forward order.
TEST(DecoderOnly, GradientNormsOfTheOneStack) {
  Transformer model = build_model(lm_config("pre", 2), kVocab, 6);
  const auto norms = analysis::sublayer_grad_norms(*model, lm_batch(), 0.1);
  ASSERT_EQ(norms.size(), 4u);
  for (size_t k = 0; k < norms.size(); ++k) {
    EXPECT_EQ(norms[k].id.stack, Stack::Decoder);
    EXPECT_EQ(norms[k].id.index, static_cast<int>(k));
    EXPECT_GT(norms[k].norm, 0.0);
  }
  EXPECT_EQ(analysis::grad_norm_group(norms[0].id), "dec_self_attn");
}

}  // namespace test_decoder_only
}  // namespace fathom
