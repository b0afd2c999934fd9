// The sub-layer styles since 2020 (issue 19; docs/methods-notes.md "Methods since 2020"):
// Peri-LN, Mix-LN, LayerNorm Scaling and DyT. Each connection against numbers worked by hand,
// Mix-LN's split against floor(alpha * L), the config keys' ranges, and every registered
// analysis run on a model of each style. The whole-model formulas are checked against the
// plain-tensor reference in test_model.cpp (Model.MatchesHandWrittenReference).
#include <gtest/gtest.h>

#include <unistd.h>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/registry.h"
#include "analysis/subject.h"
#include "base/config/config_io.h"
#include "core/model/registry.h"
#include "core/model/transformer.h"
#include "tests/support/input_error.h"
#include "tests/support/temp_dir.h"

using namespace fathom;
using fathom::testing::expect_input_error;
namespace fs = std::filesystem;

namespace test_norm_styles {

const std::vector<std::string> kNewStyles{"peri", "mix", "lns", "dyt"};

// One connection of `style` for sub-layer 0 of layer `layer` (0-based) in a stack of
// `layers`, d = 4, no dropout.
struct OneConnection {
  ModelConfig config;
  ParameterCatalog catalog;
  std::shared_ptr<ModelHooks> hooks = std::make_shared<ModelHooks>();
  std::shared_ptr<SublayerConnection> connection;

  OneConnection(const std::string& style, int layer, int layers, double mix_alpha = 0.25) {
    config.d_model = 4;
    config.dropout = 0.0;
    config.mix_ln_alpha = mix_alpha;
    const SublayerId id{Stack::Encoder, layer, SublayerKind::SelfAttention, 2 * layer};
    ConnectionContext c{config, id, 2 * layers, layers, "enc.x", hooks, catalog};
    connection = methods().sublayer_styles.find(style)->make(c);
    connection->eval();
  }
  std::vector<double> run(const torch::Tensor& x, const Branch& branch) {
    torch::NoGradGuard no_grad;
    const torch::Tensor y = connection->forward(x, branch);
    return std::vector<double>(y.data_ptr<float>(), y.data_ptr<float>() + y.numel());
  }
  std::set<std::string> parameter_names() const {
    std::set<std::string> out;
    for (const auto& p : connection->named_parameters()) out.insert(p.key());
    return out;
  }
};

const torch::Tensor kX = torch::tensor({{{1.0f, 2.0f, 3.0f, 4.0f}}});  // [1, 1, 4]

// LN(1, 2, 3, 4) with gamma 1, beta 0: mean 2.5, variance 1.25, eps 1e-5:
// (x - 2.5) / sqrt(1.25001) = (-1.341635, -0.447212, 0.447212, 1.341635).
const std::vector<double> kLn{-1.341635, -0.447212, 0.447212, 1.341635};

// A small model of `norm` (d 8, 2 heads).
RunConfig small_model(const std::string& norm, int encoder_layers, int decoder_layers) {
  RunConfig c;
  c.model.d_model = 8;
  c.model.heads = 2;
  c.model.d_ff = 16;
  c.model.encoder_layers = encoder_layers;
  c.model.decoder_layers = decoder_layers;
  c.model.norm = norm;
  return c;
}

void expect_values(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 2e-5) << "unit " << i;
}

// Peri-LN: x + LN_out(f(LN_in(x))). With f(h) = 2h the output LN undoes the doubling,
// so the branch is LN(LN(x)) = LN(x) up to eps, and the output is x + LN(x).
TEST(NormStyles, PeriLnNormalizesTheBranchInputAndOutput) {
  OneConnection c("peri", 0, 2);
  const auto y = c.run(kX, [](const torch::Tensor& h) { return 2 * h; });
  expect_values(y, {1 + kLn[0], 2 + kLn[1], 3 + kLn[2], 4 + kLn[3]});
  EXPECT_EQ(c.parameter_names(),
            (std::set<std::string>{"input_norm.ln.weight", "input_norm.ln.bias",
                                   "output_norm.ln.weight", "output_norm.ln.bias"}));
  // The branch's scale no longer reaches the stream: f(h) = 100 h gives the same output.
  expect_values(c.run(kX, [](const torch::Tensor& h) { return 100 * h; }), y);
}

// LayerNorm Scaling: x + f(LN(x) / sqrt(l)), l = 3 for the third layer; f = identity gives
// x + LN(x) / sqrt(3) = x + (-0.774593, -0.258199, 0.258199, 0.774593).
TEST(NormStyles, LayerNormScalingDividesByTheSquareRootOfTheLayer) {
  OneConnection third("lns", 2, 6);
  expect_values(third.run(kX, [](const torch::Tensor& h) { return h; }),
                {1 - 0.774593, 2 - 0.258199, 3 + 0.258199, 4 + 0.774593});
  OneConnection first("lns", 0, 6);  // l = 1: exactly Pre-LN
  expect_values(first.run(kX, [](const torch::Tensor& h) { return h; }),
                {1 + kLn[0], 2 + kLn[1], 3 + kLn[2], 4 + kLn[3]});
  EXPECT_EQ(third.parameter_names(),
            (std::set<std::string>{"pre_norm.ln.weight", "pre_norm.ln.bias"}));
}

// DyT: x + f(gamma tanh(alpha x) + beta), alpha = model.dyt_alpha = 0.5, gamma 1, beta 0;
// f = identity: tanh(0.5, 1, 1.5, 2) = (0.462117, 0.761594, 0.905148, 0.964028).
TEST(NormStyles, DyTIsGammaTanhAlphaXPlusBeta) {
  OneConnection c("dyt", 0, 2);
  expect_values(c.run(kX, [](const torch::Tensor& h) { return h; }),
                {1.462117, 2.761594, 3.905148, 4.964028});
  EXPECT_EQ(c.parameter_names(),
            (std::set<std::string>{"pre_norm.alpha", "pre_norm.weight", "pre_norm.bias"}));
  ASSERT_EQ(c.catalog.norms.size(), 0u);  // no LayerNorm anywhere
  ASSERT_EQ(c.catalog.extras.size(), 3u);
  EXPECT_EQ(c.catalog.extras[0].kind, "dyt_alpha");
  // A learned alpha and beta enter as the formula says: alpha 2, beta 0.1 on every unit.
  {
    torch::NoGradGuard no_grad;
    c.catalog.extras[0].tensor.fill_(2.0);
    c.catalog.extras[2].tensor.fill_(0.1);
  }
  const auto y = c.run(kX, [](const torch::Tensor& h) { return h; });
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(y[i], (i + 1) + std::tanh(2.0 * (i + 1)) + 0.1, 1e-5);
}

// Mix-LN: layers [0, floor(alpha L)) are Post-LN, the rest Pre-LN, per stack. Hand values:
// alpha 0.25: L = 6 -> 1, L = 18 -> 4, L = 3 -> 0; alpha 0.5: L = 3 -> 1; alpha 1: all.
TEST(NormStyles, MixLnSplitsEachStackAtFloorAlphaL) {
  struct Case {
    double alpha;
    int layers, post_layers;
  };
  for (const Case& k : std::vector<Case>{
           {0.25, 6, 1}, {0.25, 18, 4}, {0.25, 3, 0}, {0.5, 3, 1}, {1.0, 4, 4}, {0.0, 4, 0}}) {
    for (int l = 0; l < k.layers; ++l) {
      SCOPED_TRACE("alpha " + std::to_string(k.alpha) + " L " + std::to_string(k.layers) +
                   " layer " + std::to_string(l));
      OneConnection c("mix", l, k.layers, k.alpha);
      const std::string norm = l < k.post_layers ? "post_norm" : "pre_norm";
      EXPECT_EQ(c.parameter_names(),
                (std::set<std::string>{norm + ".ln.weight", norm + ".ln.bias"}));
    }
  }
}

// A stack ends with a final norm exactly when its last layer is Pre-LN-like; the encoder and
// decoder split on their own (N = 4 and M = 2 at alpha 0.5: 2 and 1 Post-LN layers).
TEST(NormStyles, FinalNormFollowsTheLastLayer) {
  auto names = [](const std::string& norm, double alpha, int N, int M) {
    RunConfig c = small_model(norm, N, M);
    c.model.mix_ln_alpha = alpha;
    Transformer model = build_model(c, 12, 1);
    std::set<std::string> out;
    for (const auto& p : model->named_parameters()) out.insert(p.key());
    return out;
  };
  const auto mix = names("mix", 0.5, 4, 2);
  EXPECT_TRUE(mix.count("encoder.layer1_ffn_connection.post_norm.ln.weight"));
  EXPECT_TRUE(mix.count("encoder.layer2_self_attn_connection.pre_norm.ln.weight"));
  EXPECT_TRUE(mix.count("decoder.layer0_enc_attn_connection.post_norm.ln.weight"));
  EXPECT_TRUE(mix.count("decoder.layer1_enc_attn_connection.pre_norm.ln.weight"));
  EXPECT_TRUE(mix.count("encoder.encoder_final_norm.ln.weight"));
  EXPECT_TRUE(mix.count("decoder.decoder_final_norm.ln.weight"));
  const auto all_post = names("mix", 1.0, 2, 2);
  EXPECT_FALSE(all_post.count("encoder.encoder_final_norm.ln.weight"));
  EXPECT_FALSE(all_post.count("decoder.decoder_final_norm.ln.weight"));
  const auto dyt = names("dyt", 0.25, 2, 2);
  EXPECT_TRUE(dyt.count("encoder.encoder_final_norm.alpha"));
  EXPECT_TRUE(dyt.count("decoder.decoder_final_norm.weight"));
  for (const auto& name : dyt) EXPECT_EQ(name.find(".ln."), std::string::npos) << name;
}

// model.decoder_norm (Admin table 1's hybrid: a Post-LN encoder, a Pre-LN decoder). With the
// same parameters, the hybrid's encoder computes what a Post-LN model's does and its decoder
// what a Pre-LN model's does on the same encoder output; only the decoder ends in a final norm.
TEST(NormStyles, DecoderNormGivesTheDecoderItsOwnPlacement) {
  RunConfig hybrid_config = small_model("post", 2, 2);
  hybrid_config.model.decoder_norm = "pre";
  check_model_methods(hybrid_config);
  Transformer hybrid = build_model(hybrid_config, 12, 1);
  std::set<std::string> names;
  for (const auto& p : hybrid->named_parameters()) names.insert(p.key());
  EXPECT_TRUE(names.count("encoder.layer1_ffn_connection.post_norm.ln.weight"));
  EXPECT_TRUE(names.count("decoder.layer1_enc_attn_connection.pre_norm.ln.weight"));
  EXPECT_FALSE(names.count("encoder.encoder_final_norm.ln.weight"));
  EXPECT_TRUE(names.count("decoder.decoder_final_norm.ln.weight"));

  // Another model of one placement, given the hybrid's parameters of the same names.
  auto with_hybrids_parameters = [&](const std::string& norm) {
    Transformer other = build_model(small_model(norm, 2, 2), 12, 2);
    torch::NoGradGuard no_grad;
    const auto mine = hybrid->named_parameters();
    for (auto& p : other->named_parameters())
      if (const torch::Tensor* same = mine.find(p.key())) p.value().copy_(*same);
    other->eval();
    return other;
  };
  hybrid->eval();
  torch::NoGradGuard no_grad;
  const torch::Tensor src = torch::tensor({{4, 5, 6, 3}}, torch::kInt64);
  const torch::Tensor tgt = torch::tensor({{2, 7, 8}}, torch::kInt64);
  const torch::Tensor memory = hybrid->encode(src);
  EXPECT_TRUE(torch::allclose(memory, with_hybrids_parameters("post")->encode(src)));
  const torch::Tensor padding = src.eq(TransformerImpl::kPad);
  EXPECT_TRUE(torch::allclose(hybrid->decode(tgt, memory, padding),
                              with_hybrids_parameters("pre")->decode(tgt, memory, padding)));
  // Not trivially: the Post-LN decoder computes something else from the same input.
  Transformer post = with_hybrids_parameters("post");
  EXPECT_FALSE(
      torch::allclose(hybrid->decode(tgt, memory, padding), post->decode(tgt, memory, padding)));
}

// Where a per-stack placement means nothing or would mislead, model.decoder_norm is refused
// with its file, line and key.
TEST(NormStyles, DecoderNormIsRefusedWhereItCannotHold) {
  auto field_of = [](const std::string& yaml) {
    return expect_input_error([&] { check_model_methods(load_config_string(yaml, "c.yaml", "")); })
        .field();
  };
  EXPECT_EQ(field_of("model:\n  decoder_norm: prre\n"), "model.decoder_norm");
  EXPECT_EQ(field_of("model:\n  decoder_norm: dyt\n"), "model.decoder_norm");  // no LayerNorm
  EXPECT_EQ(field_of("model:\n  norm: dyt\n  decoder_norm: pre\n"), "model.norm");
  EXPECT_EQ(field_of("model:\n  init: admin\n  decoder_norm: pre\n"), "model.decoder_norm");
  EXPECT_EQ(field_of("model:\n  init: deepnorm\n  decoder_norm: post\n"), "model.decoder_norm");
  EXPECT_EQ(field_of("model:\n  connection: depthwise_lstm\n  decoder_norm: pre\n"),
            "model.decoder_norm");
  EXPECT_EQ(field_of("model:\n  arch: decoder_only\n  decoder_norm: pre\n"), "model.decoder_norm");
  const InputError line = expect_input_error([] {
    check_model_methods(
        load_config_string("model:\n  norm: post\n  decoder_norm: prre\n", "c.yaml", ""));
  });
  EXPECT_EQ(line.line(), 3);
  EXPECT_NO_THROW(check_model_methods(
      load_config_string("model:\n  norm: post\n  decoder_norm: pre\n", "c.yaml", "")));
}

// DyT's alpha learns: the loss has a gradient with respect to every alpha.
TEST(NormStyles, DyTAlphaReceivesGradients) {
  RunConfig c = small_model("dyt", 2, 1);
  c.model.dyt_alpha = 0.8;
  Transformer model = build_model(c, 12, 1);
  const torch::Tensor src = torch::tensor({{4, 5, 6, 3}}, torch::kInt64);
  const torch::Tensor tgt = torch::tensor({{2, 7, 8}}, torch::kInt64);
  model->forward(src, tgt).pow(2).mean().backward();
  int alphas = 0;
  for (const auto& e : model->catalog().extras) {
    if (e.kind != "dyt_alpha") continue;
    ++alphas;
    EXPECT_FLOAT_EQ(e.tensor.item<float>(), 0.8f) << e.name;  // model.dyt_alpha
    ASSERT_TRUE(e.tensor.grad().defined()) << e.name;
    EXPECT_GT(e.tensor.grad().abs().item<double>(), 0.0) << e.name;
  }
  EXPECT_EQ(alphas, 2 * 2 + 3 * 1 + 2);  // one per sub-layer and one final per stack
}

// The two new keys are range-checked where they are declared, with the file, line and key.
TEST(NormStyles, ConfigKeysRejectValuesOutsideTheirRange) {
  const InputError mix = expect_input_error([] {
    check_config(load_config_string("model:\n  norm: mix\n  mix_ln_alpha: 1.5\n", "c.yaml", ""));
  });
  EXPECT_EQ(mix.field(), "model.mix_ln_alpha");
  EXPECT_EQ(mix.line(), 3);
  EXPECT_NE(mix.message().find("in [0, 1]"), std::string::npos) << mix.what();
  const InputError dyt = expect_input_error(
      [] { check_config(load_config_string("model:\n  dyt_alpha: 0\n", "c.yaml", "")); });
  EXPECT_EQ(dyt.field(), "model.dyt_alpha");
  EXPECT_NE(dyt.message().find("> 0"), std::string::npos) << dyt.what();
  // model.norm is checked against the registry, with a suggestion.
  const InputError typo = expect_input_error(
      [] { check_model_methods(load_config_string("model:\n  norm: perri\n", "c.yaml", "")); });
  EXPECT_EQ(typo.field(), "model.norm");
  EXPECT_EQ(typo.line(), 2);
  EXPECT_NE(typo.message().find("did you mean 'peri'"), std::string::npos) << typo.what();
  // A depth-wise LSTM model keeps the paper's LayerNorms; a style that would be ignored is refused.
  const InputError lstm = expect_input_error([] {
    check_model_methods(
        load_config_string("model:\n  norm: dyt\n  connection: depthwise_lstm\n", "c.yaml", ""));
  });
  EXPECT_EQ(lstm.field(), "model.norm");
}

// Every registered analysis runs on a model of every new style, and the two that read
// LayerNorm statistics say what they did: ln-scale lists exactly Mix-LN's Post-LN norms
// and DyT's alphas; beta notes that DyT leaves no final row.
TEST(NormStyles, EveryAnalysisRunsOnEveryStyle) {
  const fathom::testing::TempDir scratch;
  const fs::path dir = scratch.path();
  for (const std::string& style : kNewStyles) {
    SCOPED_TRACE(style);
    const fs::path config = dir / (style + ".yaml");
    std::ofstream(config)
        << "name: " << style << "\ndevice: cpu\n"
        << "model: {d_model: 16, heads: 2, d_ff: 32, encoder_layers: 2, "
        << "decoder_layers: 1, norm: " << style << ", mix_ln_alpha: 0.5}\n"
        << "data:\n  task: synthetic\n  max_tokens: 256\n"
        << "  synthetic: {vocab: 8, train_size: 100, valid_size: 10, test_size: 5}\n"
        << "train: {seed: 2, threads: 1}\neval: {beam: 1}\n";
    analysis::AnalysisParams params;
    params.depths = {1, 2};
    params.draws = 1;
    params.steps = 20;
    params.eval_every = 10;
    params.sample_batches = 2;
    params.batches = 4;  // noise-scale: the 100 pairs make 7 batches, not 32
    params.progress = false;
    for (const auto& [name, a] : analysis::analyses()) {
      SCOPED_TRACE(name);
      std::vector<analysis::Subject> subjects{analysis::subject_from_config(
          config.string(), {}, (dir / "cache").string(), !a.takes_many_configs)};
      nlohmann::json result;
      ASSERT_NO_THROW(result = a.run(subjects, params));
      ASSERT_FALSE(result.is_null());
      std::ostringstream printed;
      ASSERT_NO_THROW(a.print(result, printed));
      EXPECT_FALSE(printed.str().empty());
      if (name == "ln-scale") {
        std::vector<std::string> norms;
        for (const auto& n : result["norms"]) norms.push_back(n["name"]);
        if (style == "mix")  // encoder layer 0 of 2 is Post-LN; the 1-layer decoder has none
          EXPECT_EQ(norms,
                    (std::vector<std::string>{"enc.0.self_attn.post_norm", "enc.0.ffn.post_norm"}));
        else
          EXPECT_TRUE(norms.empty());
        if (style == "dyt") {
          EXPECT_NE(result.value("note", "").find("DyT"), std::string::npos);
          ASSERT_EQ(result["dyt"].size(), 2u * 2 + 3 + 2);
          for (const auto& d : result["dyt"]) EXPECT_DOUBLE_EQ(d["alpha"].get<double>(), 0.5);
        }
      }
      if (name == "beta") {
        EXPECT_EQ(result["encoder"]["beta"].size(), 4u);
        EXPECT_EQ(result["encoder"]["final"].is_null(), style == "dyt");
        EXPECT_EQ(result.contains("note"), style == "dyt");
      }
    }
  }
}

}  // namespace test_norm_styles
