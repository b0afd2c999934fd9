// Layer linearization (methods.md s5.4; analysis/linearize.h): the least-squares start, the
// replace_layer hook against a model whose layer is made the identity by zeroing its branch
// outputs (an independent construction), layers made exactly affine by hand (residual and
// depth-wise LSTM) whose known W, b must come back, early stopping and the control.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/linearize.h"
#include "analysis/registry.h"
#include "analysis/subject.h"
#include "base/util/error.h"
#include "core/data/dataset.h"
#include "core/model/registry.h"
#include "tests/support/analysis_fixture.h"

namespace fathom::analysis {
namespace test_analysis_linearize {

RunConfig tiny_config(const std::string& norm, const std::string& init = "xavier") {
  RunConfig c;
  c.device = "cpu";
  c.model.d_model = 16;
  c.model.heads = 2;
  c.model.d_ff = 32;
  c.model.encoder_layers = 2;
  c.model.decoder_layers = 2;
  c.model.norm = norm;
  c.model.init = init;
  c.data.task = "synthetic";
  c.data.synthetic.vocab = 8;
  c.data.synthetic.train_size = 120;
  c.data.synthetic.valid_size = 10;
  c.data.synthetic.test_size = 6;
  c.data.max_tokens = 256;
  c.eval.beam = 1;
  return c;
}

Subject subject_of(const RunConfig& config) {
  return subject_with_data(config, "tiny " + config.model.norm);
}

Subject tiny_subject(const std::string& norm) { return subject_of(tiny_config(norm)); }

// Pre-LN layer l of `stack` becomes x -> x: every branch's last projection outputs zero.
void make_identity_layer(TransformerImpl& model, Stack stack, int layer) {
  torch::NoGradGuard no_grad;
  for (auto& l : model.catalog().linears)
    if (l.owner.stack == stack && l.owner.layer == layer &&
        (l.role == LinearRole::AttentionOutput || l.role == LinearRole::FfnOut)) {
      l.linear->weight.zero_();
      l.linear->bias.zero_();
    }
}

TEST(Linearize, LeastSquaresRecoversAKnownLinearMap) {
  torch::manual_seed(2);
  const torch::Tensor x = torch::randn({400, 8});
  const torch::Tensor w = torch::randn({8, 8}), b = torch::randn({8});
  auto [fw, fb] = fit_linear(x, torch::matmul(x, w.t()) + b);
  EXPECT_LT((fw - w).abs().max().item<double>(), 1e-4);
  EXPECT_LT((fb - b).abs().max().item<double>(), 1e-4);
}

TEST(Linearize, ParsesLayerRanges) {
  const auto layers = parse_layers("enc:1-2,dec:3", 2, 4);
  ASSERT_EQ(layers.size(), 3u);
  EXPECT_EQ(layers[0].name(), "enc.1");
  EXPECT_EQ(layers[1].layer, 1);
  EXPECT_EQ(layers[2].stack, Stack::Decoder);
  EXPECT_EQ(layers[2].layer, 2);
  EXPECT_EQ(parse_layers("", 2, 3).size(), 5u);
  EXPECT_THROW(parse_layers("enc:0-2", 2, 2), std::invalid_argument);
  EXPECT_THROW(parse_layers("enc:1-3", 2, 2), std::invalid_argument);
  EXPECT_THROW(parse_layers("mid:1", 2, 2), std::invalid_argument);
  EXPECT_THROW(parse_layers("dec:x", 2, 2), std::invalid_argument);
}

// Replacing layer l by y = I x + 0 must equal running a copy whose layer l is the identity.
TEST(Linearize, ReplacedLayerEqualsAnIdentityLayerBuiltByHand) {
  for (Stack stack : {Stack::Encoder, Stack::Decoder}) {
    Subject a = tiny_subject("pre");
    Subject b = tiny_subject("pre");  // same seed: same parameters
    make_identity_layer(*b.model, stack, 1);
    const int64_t d = a.config.model.d_model;
    AffineLayerMap identity({stack, 1}, AffineLayerMap::Where::InsteadOfLayer, torch::eye(d),
                            torch::zeros({d}));
    torch::NoGradGuard no_grad;
    a.model->eval();
    b.model->eval();
    a.model->hooks().observer = &identity;
    const torch::Tensor replaced = a.model->forward(a.batch.src, a.batch.tgt_in);
    a.model->hooks().observer = nullptr;
    const torch::Tensor by_hand = b.model->forward(b.batch.src, b.batch.tgt_in);
    EXPECT_LT((replaced - by_hand).abs().max().item<double>(), 1e-5);
    const torch::Tensor original = a.model->forward(a.batch.src, a.batch.tgt_in);
    EXPECT_GT((replaced - original).abs().max().item<double>(), 1e-3);  // the layer mattered

    // The identity layer's pairs are x == y, and least squares finds W = I, b = 0.
    const auto pairs = collect_layer_pairs(*b.model, {stack, 1}, {b.batch});
    EXPECT_EQ((pairs.x - pairs.y).abs().max().item<double>(), 0.0);
    auto [w, bias] = fit_linear(pairs.x, pairs.y);
    EXPECT_LT((w - torch::eye(d)).abs().max().item<double>(), 1e-3);
    EXPECT_LT(bias.abs().max().item<double>(), 1e-3);
  }
}

torch::Tensor& find_linear_weight(TransformerImpl& model, const std::string& name, bool bias) {
  for (auto& l : model.catalog().linears)
    if (l.name == name) return bias ? l.linear->bias : l.linear->weight;
  throw std::runtime_error("no linear " + name);
}

torch::Tensor& find_extra(TransformerImpl& model, const std::string& name) {
  for (auto& e : model.catalog().extras)
    if (e.name == name) return e.tensor;
  throw std::runtime_error("no parameter " + name);
}

torch::nn::LayerNorm& find_norm(TransformerImpl& model, const std::string& name) {
  for (auto& n : model.catalog().norms)
    if (n.name == name) return n.norm;
  throw std::runtime_error("no LayerNorm " + name);
}

// ReZero encoder layer 2 made exactly affine by hand: its attention's alpha is 0 and its FFN
// runs in the linear part of GeLU (fc1's bias 100, so every pre-activation is far above 0 and
// GeLU(z) = z in float32). Layer 1 is switched on (alphas 1) so that layer 2's inputs are a
// non-linear mix of the embeddings and span all d directions. With alpha a on the FFN:
//   x_2 = x_1 + a (W2 (W1 x_1 + b1) + b2) = (I + a W2 W1) x_1 + a (W2 b1 + b2).
struct AffineByHand {
  torch::Tensor weight, bias;
};
AffineByHand make_affine_rezero_layer(TransformerImpl& model) {
  torch::NoGradGuard no_grad;
  const double a = 0.5;
  find_extra(model, "enc.0.self_attn.alpha").fill_(1.0);
  find_extra(model, "enc.0.ffn.alpha").fill_(1.0);
  find_extra(model, "enc.1.self_attn.alpha").zero_();
  find_extra(model, "enc.1.ffn.alpha").fill_(a);
  find_linear_weight(model, "enc.1.ffn.fc1", true).fill_(100.0);
  const torch::Tensor w1 = find_linear_weight(model, "enc.1.ffn.fc1", false).to(torch::kFloat64);
  const torch::Tensor b1 = find_linear_weight(model, "enc.1.ffn.fc1", true).to(torch::kFloat64);
  const torch::Tensor w2 = find_linear_weight(model, "enc.1.ffn.fc2", false).to(torch::kFloat64);
  const torch::Tensor b2 = find_linear_weight(model, "enc.1.ffn.fc2", true).to(torch::kFloat64);
  const int64_t d = w1.size(1);
  return {torch::eye(d, torch::kFloat64) + a * torch::matmul(w2, w1),
          a * (torch::matmul(w2, b1) + b2)};
}

double max_abs(const torch::Tensor& t) { return t.abs().max().item<double>(); }

AnalysisParams quiet_params(const std::string& layers, const std::string& objective, int steps) {
  AnalysisParams p;
  p.progress = false;
  p.layers = layers;
  p.objective = objective;
  p.steps = steps;
  return p;
}

TEST(Linearize, AnExactlyAffineResidualLayerComesBackExactly) {
  Subject s = subject_of(tiny_config("pre", "rezero"));
  const AffineByHand expected = make_affine_rezero_layer(*s.model);
  // The model's layer is what the hand formula says, and its inputs identify W, b.
  const auto pairs = collect_layer_pairs(*s.model, {Stack::Encoder, 1}, {s.batch});
  const torch::Tensor by_hand =
      torch::matmul(pairs.x.to(torch::kFloat64), expected.weight.t()) + expected.bias;
  ASSERT_LT(max_abs(pairs.y.to(torch::kFloat64) - by_hand), 1e-3);
  const torch::Tensor design = torch::cat(
      {pairs.x.to(torch::kFloat64), torch::ones({pairs.x.size(0), 1}, torch::kFloat64)}, 1);
  ASSERT_EQ(torch::linalg_matrix_rank(design).item<int64_t>(), pairs.x.size(1) + 1);
  // Least squares finds that W, b.
  auto [w, b] = fit_linear(pairs.x, pairs.y);
  EXPECT_LT(max_abs(w.to(torch::kFloat64) - expected.weight), 2e-3);
  EXPECT_LT(max_abs(b.to(torch::kFloat64) - expected.bias), 2e-3);

  // The analysis: replacing that layer changes nothing, and MSE training from the optimum
  // keeps it (no validation improvement: the start is kept).
  AnalysisParams p = quiet_params("enc:2", "mse", 40);
  p.eval_every = 10;
  p.patience = 2;
  std::vector<Subject> subjects{s};
  const nlohmann::json r = find_analysis("linearize").run(subjects, p);
  const auto& row = r["layers"][0];
  const double full_ppl = r["full"]["valid_ppl"].get<double>();
  EXPECT_NEAR(row["valid_ppl"].get<double>(), full_ppl, 1e-4 * full_ppl);
  EXPECT_EQ(row["bleu"], r["full"]["bleu"]);
  EXPECT_LT(row["lstsq_mse"].get<double>(), 1e-9 * pairs.y.pow(2).mean().item<double>());
  EXPECT_EQ(row["state_width"], 16);
}

// Depth-wise LSTM encoder layer 2 made exactly affine by hand (share: none, so the layer owns
// its cell): the gate Linear outputs 0, so each gate's LayerNorm sees a constant vector and
// returns its bias beta_g (ig, fg, og = sigmoid(beta_i, beta_f, beta_o)), and the hidden's fc2
// weight is 0, so h = its bias h0. Then c_2 = fg c_1 + ig h0 and o_2 = og c_2:
//   [o_2 ; c_2] = [[0, diag(og fg)], [0, diag(fg)]] [o_1 ; c_1] + [og ig h0 ; ig h0].
TEST(Linearize, AnExactlyAffineDepthwiseLstmLayerComesBackExactly) {
  RunConfig c = tiny_config("pre");
  c.model.connection = "depthwise_lstm";
  c.model.lstm.share = "none";
  Subject s = subject_of(c);
  TransformerImpl& model = *s.model;
  const int64_t d = c.model.d_model;
  torch::Tensor ig, fg, og, h0;
  {
    torch::NoGradGuard no_grad;
    torch::manual_seed(9);
    find_linear_weight(model, "enc.1.lstm.gates", false).zero_();
    find_linear_weight(model, "enc.1.lstm.gates", true).zero_();
    torch::Tensor gate[3];
    const char* names[3] = {"enc.1.lstm.gates.ln_i", "enc.1.lstm.gates.ln_f",
                            "enc.1.lstm.gates.ln_o"};
    for (int g = 0; g < 3; ++g) {
      auto& norm = find_norm(model, names[g]);
      norm->bias.copy_(torch::randn({d}));
      gate[g] = torch::sigmoid(norm->bias.to(torch::kFloat64));
    }
    ig = gate[0], fg = gate[1], og = gate[2];
    find_linear_weight(model, "enc.1.lstm.hidden.fc2", false).zero_();
    h0 = find_linear_weight(model, "enc.1.lstm.hidden.fc2", true).to(torch::kFloat64).clone();
  }
  torch::Tensor weight = torch::zeros({2 * d, 2 * d}, torch::kFloat64);
  weight.slice(0, 0, d).slice(1, d, 2 * d).copy_(torch::diag(og * fg));
  weight.slice(0, d, 2 * d).slice(1, d, 2 * d).copy_(torch::diag(fg));
  const torch::Tensor bias = torch::cat({og * ig * h0, ig * h0});

  const auto pairs = collect_layer_pairs(model, {Stack::Encoder, 1}, {s.batch});
  ASSERT_EQ(pairs.x.size(1), 2 * d);
  const torch::Tensor by_hand = torch::matmul(pairs.x.to(torch::kFloat64), weight.t()) + bias;
  EXPECT_LT(max_abs(pairs.y.to(torch::kFloat64) - by_hand), 1e-5);
  // c_1 varies over tokens (layer 1 is a real LSTM step), so the c columns are identified;
  // least squares recovers the whole map.
  auto [w, b] = fit_linear(pairs.x, pairs.y);
  EXPECT_LT(max_abs(w.to(torch::kFloat64) - weight), 1e-3);
  EXPECT_LT(max_abs(b.to(torch::kFloat64) - bias), 1e-3);

  // Installed in place of the layer, that map reproduces the model's output.
  AffineLayerMap map({Stack::Encoder, 1}, AffineLayerMap::Where::InsteadOfLayer,
                     weight.to(torch::kFloat32), bias.to(torch::kFloat32));
  torch::NoGradGuard no_grad;
  model.eval();
  const torch::Tensor original = model.forward(s.batch.src, s.batch.tgt_in);
  model.hooks().observer = &map;
  const torch::Tensor replaced = model.forward(s.batch.src, s.batch.tgt_in);
  model.hooks().observer = nullptr;
  EXPECT_LT(max_abs(replaced - original), 1e-4);
}

// A depth-wise LSTM model runs end to end: every layer of both stacks, with 2d-wide states.
TEST(Linearize, DepthwiseLstmModelsAreLinearizedLayerByLayer) {
  RunConfig c = tiny_config("pre");
  c.model.connection = "depthwise_lstm";
  Subject s = subject_of(c);
  AnalysisParams p;
  p.progress = false;
  p.steps = 0;
  std::vector<Subject> subjects{s};
  const nlohmann::json r = find_analysis("linearize").run(subjects, p);
  ASSERT_EQ(r["layers"].size(), 4u);
  EXPECT_EQ(r["connection"], "depthwise_lstm");
  for (const auto& row : r["layers"]) {
    EXPECT_EQ(row["state_width"], 2 * c.model.d_model) << row["layer"];
    EXPECT_TRUE(row["valid_ppl"].is_number()) << row["layer"];
    EXPECT_GT(row["lstsq_mse"].get<double>(), 0.0) << row["layer"];  // real layers are not affine
  }
}

// A hyper-connection encoder made exactly linear by hand: every branch outputs zero (attention
// and FFN output projections zeroed) and the dynamic weights are 0 (as at initialization), so
// sub-layer k only mixes the streams by its static M_k, the transpose of its hc.mix (set random
// here): layer 2 is H -> P_2 H per token and layer 1, which first copies its embedding x into
// the n streams, x -> (P_1 1_n) (x) x, i.e. W = kron(P_1 1_n, I_d): d in, n d out, with
// P_l = M_ffn M_attn. Least squares recovers that W; the analysis maps each layer (d -> n d,
// then n d -> n d, whose inputs are n multiples of one vector: the fit is not unique but
// exact) and the validation perplexity stays.
TEST(Linearize, AnExactlyLinearHyperConnectionLayerComesBackExactly) {
  RunConfig c = tiny_config("pre");
  c.model.connection = "hyper";
  c.model.hc_streams = 3;
  c.data.synthetic.vocab = 40;  // embeddings that span all d directions (with 8 they do not)
  Subject s = subject_of(c);
  TransformerImpl& model = *s.model;
  const int64_t d = c.model.d_model, n = c.model.hc_streams;
  torch::Tensor p1;  // M_ffn M_attn of layer 1
  {
    torch::NoGradGuard no_grad;
    torch::manual_seed(4);
    for (int layer : {0, 1}) {
      make_identity_layer(model, Stack::Encoder, layer);
      torch::Tensor p = torch::eye(n, torch::kFloat64);
      for (const char* sub : {"self_attn", "ffn"}) {
        torch::Tensor& mix =
            find_extra(model, "enc." + std::to_string(layer) + "." + sub + ".hc.mix");
        mix.copy_(torch::rand({n, n}) + 0.2);
        p = torch::matmul(mix.to(torch::kFloat64).t(), p);  // M_k = mix^T, applied after p
      }
      if (layer == 0) p1 = p;
    }
  }
  const torch::Tensor gains = torch::matmul(p1, torch::ones({n}, torch::kFloat64));
  torch::Tensor weight = torch::zeros({n * d, d}, torch::kFloat64);
  for (int64_t i = 0; i < n; ++i)
    weight.slice(0, i * d, (i + 1) * d).copy_(gains[i] * torch::eye(d, torch::kFloat64));

  const auto pairs = collect_layer_pairs(model, {Stack::Encoder, 0}, {s.batch});
  ASSERT_EQ(pairs.x.size(1), d);
  ASSERT_EQ(pairs.y.size(1), n * d);
  const torch::Tensor by_hand = torch::matmul(pairs.x.to(torch::kFloat64), weight.t());
  ASSERT_LT(max_abs(pairs.y.to(torch::kFloat64) - by_hand), 1e-4);
  const torch::Tensor design = torch::cat(
      {pairs.x.to(torch::kFloat64), torch::ones({pairs.x.size(0), 1}, torch::kFloat64)}, 1);
  ASSERT_EQ(torch::linalg_matrix_rank(design).item<int64_t>(), d + 1);
  auto [w, b] = fit_linear(pairs.x, pairs.y);
  EXPECT_LT(max_abs(w.to(torch::kFloat64) - weight), 2e-3);
  EXPECT_LT(max_abs(b.to(torch::kFloat64)), 2e-3);

  std::vector<Subject> subjects{s};
  const nlohmann::json r =
      find_analysis("linearize").run(subjects, quiet_params("enc:1-2", "mse", 0));
  ASSERT_EQ(r["layers"].size(), 2u);
  const double full_ppl = r["full"]["valid_ppl"].get<double>();
  const int64_t widths[2][2] = {{d, n * d}, {n * d, n * d}};  // in, out
  for (int l = 0; l < 2; ++l) {
    const auto& row = r["layers"][l];
    SCOPED_TRACE(row.dump());
    EXPECT_EQ(row["input_width"], widths[l][0]);
    EXPECT_EQ(row["state_width"], widths[l][1]);
    EXPECT_EQ(row["map_parameters"], widths[l][1] * widths[l][0] + widths[l][1]);
    EXPECT_LT(row["lstsq_mse"].get<double>(), 1e-8 * pairs.y.pow(2).mean().item<double>());
    EXPECT_NEAR(row["valid_ppl"].get<double>(), full_ppl, 1e-4 * full_ppl);
  }
  std::ostringstream printed;
  find_analysis("linearize").print(r, printed);
  EXPECT_NE(printed.str().find("packed streams"), std::string::npos) << printed.str();

  // The streams have no output part for --lstm-map output to keep.
  AnalysisParams output_only = quiet_params("enc:1", "mse", 0);
  output_only.lstm_map = "output";
  EXPECT_THROW(find_analysis("linearize").run(subjects, output_only), InputError);
}

// A map narrower than the state maps the first columns and carries the rest: worked by hand,
// state [1, 2 | 3, 4] with W = [[0, 1], [2, 0]], b = [10, 20] gives [12, 22 | 3, 4].
TEST(Linearize, ANarrowMapCarriesTheRestOfTheState) {
  AffineLayerMap map({Stack::Encoder, 0}, AffineLayerMap::Where::InsteadOfLayer,
                     torch::tensor({{0.0f, 1.0f}, {2.0f, 0.0f}}), torch::tensor({10.0f, 20.0f}));
  const torch::Tensor state = torch::tensor({{{1.0f, 2.0f, 3.0f, 4.0f}}});  // [batch, pos, 4]
  const torch::Tensor out = map.apply(state);
  ASSERT_EQ(out.sizes(), state.sizes());
  const std::vector<float> expected{12, 22, 3, 4};
  for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(out[0][0][i].item<float>(), expected[i]) << i;
}

// `--lstm-map output` gives a depth-wise LSTM layer the residual map's size: W is d x d on the
// output o and the cell passes through. With fewer free parameters, least squares fits the
// layer's o no better than the full map does (its regressors [o; c; 1] include [o; 1]).
TEST(Linearize, LstmOutputMapHasTheResidualMapsParameterCount) {
  RunConfig c = tiny_config("pre");
  c.model.connection = "depthwise_lstm";
  Subject s = subject_of(c);
  const int64_t d = c.model.d_model;
  AnalysisParams p = quiet_params("enc:1,dec:2", "task", 0);
  p.lstm_map = "output";
  std::vector<Subject> subjects{s};
  const nlohmann::json r = find_analysis("linearize").run(subjects, p);
  EXPECT_EQ(r["lstm_map"], "output");
  ASSERT_EQ(r["layers"].size(), 2u);
  for (const auto& row : r["layers"]) {
    EXPECT_EQ(row["state_width"], 2 * d);
    EXPECT_EQ(row["mapped_width"], d);
    EXPECT_EQ(row["map_parameters"], d * d + d);
  }
  p.lstm_map = "full";
  const nlohmann::json full = find_analysis("linearize").run(subjects, p);
  EXPECT_EQ(full["layers"][0]["map_parameters"], 2 * d * (2 * d) + 2 * d);
  // Fewer free parameters fit the layer no better on its own training pairs.
  const auto pairs = collect_layer_pairs(*s.model, {Stack::Encoder, 0}, {s.batch});
  auto [w_full, b_full] = fit_linear(pairs.x, pairs.y);
  auto [w_o, b_o] = fit_linear(pairs.x.narrow(1, 0, d), pairs.y.narrow(1, 0, d));
  AffineLayerMap full_map({Stack::Encoder, 0}, AffineLayerMap::Where::InsteadOfLayer, w_full,
                          b_full);
  AffineLayerMap output_map({Stack::Encoder, 0}, AffineLayerMap::Where::InsteadOfLayer, w_o, b_o);
  torch::NoGradGuard no_grad;
  const torch::Tensor carried = output_map.apply(pairs.x);
  EXPECT_EQ(max_abs(carried.narrow(1, d, d) - pairs.x.narrow(1, d, d)), 0.0);  // c carried
  const double err_full =
      (full_map.apply(pairs.x) - pairs.y).narrow(1, 0, d).pow(2).mean().item<double>();
  const double err_output = (carried - pairs.y).narrow(1, 0, d).pow(2).mean().item<double>();
  EXPECT_LE(err_full, err_output + 1e-6);

  p.lstm_map = "both";
  EXPECT_THROW(find_analysis("linearize").run(subjects, p), InputError);
}

// Early stopping keeps the best W, b on validation data. Under the MSE objective the
// least-squares start is the optimum on the training sample and nearly so on held-out pairs;
// with a learning rate of 10 every Adam step moves each entry by about 10, so the first check
// is worse: with patience 1 training stops there and the start is kept -- the same valid ppl
// as no training at all.
TEST(Linearize, EarlyStoppingKeepsTheBestValidationObjective) {
  Subject s = tiny_subject("pre");
  std::vector<Subject> subjects{s};
  AnalysisParams p = quiet_params("enc:2", "mse", 0);
  const nlohmann::json untrained = find_analysis("linearize").run(subjects, p);
  p.steps = 50;
  p.eval_every = 1;
  p.patience = 1;
  p.lr = 10.0;
  const nlohmann::json wild = find_analysis("linearize").run(subjects, p);
  const auto& row = wild["layers"][0];
  EXPECT_EQ(row["steps"], 1);
  EXPECT_EQ(row["best_step"], 0);
  EXPECT_EQ(row["valid_objective"], row["valid_objective_start"]);
  EXPECT_NEAR(row["valid_ppl"].get<double>(), untrained["layers"][0]["valid_ppl"].get<double>(),
              1e-9);

  // On the task loss a sensible learning rate improves on the start, and the kept W, b are
  // from a check.
  p.objective = "task";
  p.lr = 1e-3;
  p.eval_every = 5;
  p.patience = 3;
  p.steps = 30;
  const nlohmann::json trained = find_analysis("linearize").run(subjects, p);
  const auto& t = trained["layers"][0];
  EXPECT_LT(t["valid_objective"].get<double>(), t["valid_objective_start"].get<double>());
  EXPECT_GT(t["best_step"].get<int>(), 0);
  EXPECT_EQ(t["best_step"].get<int>() % 5, 0);
  EXPECT_LE(t["steps"].get<int>(), 30);
}

// The control trains an affine map after the intact layer from the identity. Under the MSE
// objective its start is the exact optimum (zero error, zero gradient, so Adam does not move
// it): the control is the unmodified model, with the full model's scores. Under the task
// objective it may only improve on the full model's validation loss.
TEST(Linearize, TheControlIsTheUnmodifiedModelGivenTheSameTraining) {
  Subject s = tiny_subject("pre");
  std::vector<Subject> subjects{s};
  AnalysisParams p = quiet_params("dec:1", "mse", 20);
  p.eval_every = 5;
  p.patience = 2;
  const nlohmann::json r = find_analysis("linearize").run(subjects, p);
  const auto& control = r["layers"][0]["control"];
  EXPECT_EQ(control["valid_objective_start"], 0.0);
  EXPECT_EQ(control["best_step"], 0);
  EXPECT_EQ(control["steps"], 10);  // two checks without improvement
  EXPECT_NEAR(control["valid_ppl"].get<double>(), r["full"]["valid_ppl"].get<double>(), 1e-6);
  EXPECT_EQ(control["bleu"], r["full"]["bleu"]);
  EXPECT_EQ(control["ppl_change_pct"].get<double>(), 0.0);

  p.objective = "task";
  const nlohmann::json t = find_analysis("linearize").run(subjects, p);
  const auto& task_control = t["layers"][0]["control"];
  EXPECT_LE(task_control["valid_objective"].get<double>(),
            task_control["valid_objective_start"].get<double>());
  // The comparison against the control is the ratio of the two evaluations.
  const auto& row = t["layers"][0];
  ASSERT_TRUE(row["bleu"].is_number());
  if (task_control["bleu"].get<double>() > 0) {
    EXPECT_NEAR(row["bleu_vs_control_pct"].get<double>(),
                100 * (row["bleu"].get<double>() / task_control["bleu"].get<double>() - 1), 1e-9);
  } else {
    EXPECT_TRUE(row["bleu_vs_control_pct"].is_null());  // no percentage of a zero BLEU
  }
}

// Every requested layer gets a row; replacing a real layer changes perplexity.
TEST(Linearize, AnalysisReportsEveryRequestedLayer) {
  Subject s = tiny_subject("pre");
  make_identity_layer(*s.model, Stack::Encoder, 0);
  AnalysisParams p;
  p.progress = false;
  p.layers = "enc:1-2,dec:2";
  p.steps = 0;
  std::vector<Subject> subjects{s};
  const nlohmann::json r = find_analysis("linearize").run(subjects, p);
  ASSERT_EQ(r["layers"].size(), 3u);
  const double full = r["full"]["valid_ppl"].get<double>();
  EXPECT_EQ(r["layers"][0]["layer"], "enc.1");
  EXPECT_NEAR(r["layers"][0]["valid_ppl"].get<double>(), full, 1e-3 * full);
  EXPECT_LT(r["layers"][0]["lstsq_mse"].get<double>(), 1e-8);
  EXPECT_GT(r["layers"][1]["lstsq_mse"].get<double>(), 1e-6);
  EXPECT_GT(std::abs(r["layers"][1]["valid_ppl"].get<double>() - full), 1e-4 * full);
  EXPECT_TRUE(r["layers"][2]["bleu"].is_number());
}

// --device: on a GPU the pairs, maps, training and evaluations follow the model and give the
// CPU's figures within float32 reassociation (the full model's perplexity, each layer's
// least-squares fit and its perplexity once replaced). scripts/gpu/lease.sh runs it.
TEST(Linearize, OnCudaFollowsTheCpu) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "needs a CUDA GPU (scripts/gpu/lease.sh)";
  AnalysisParams p;
  p.progress = false;
  p.layers = "enc:1-2,dec:2";
  p.steps = 0;  // the least-squares maps alone: no early stopping to part the devices
  std::vector<Subject> on_cpu{tiny_subject("pre")}, on_gpu{tiny_subject("pre")};
  const nlohmann::json cpu = find_analysis("linearize").run(on_cpu, p);
  p.device = "cuda";
  const nlohmann::json gpu = find_analysis("linearize").run(on_gpu, p);
  EXPECT_EQ(on_gpu[0].model->parameters().front().device().type(), torch::kCUDA);
  auto near = [](const nlohmann::json& a, const nlohmann::json& b, double rel, double abs) {
    EXPECT_NEAR(a.get<double>(), b.get<double>(), rel * std::abs(b.get<double>()) + abs);
  };
  near(gpu["full"]["valid_ppl"], cpu["full"]["valid_ppl"], 1e-5, 0);
  ASSERT_EQ(gpu["layers"].size(), cpu["layers"].size());
  for (size_t i = 0; i < cpu["layers"].size(); ++i) {
    SCOPED_TRACE(cpu["layers"][i]["layer"].get<std::string>());
    EXPECT_EQ(gpu["layers"][i]["pairs"], cpu["layers"][i]["pairs"]);
    near(gpu["layers"][i]["lstsq_mse"], cpu["layers"][i]["lstsq_mse"], 1e-3, 1e-9);
    near(gpu["layers"][i]["valid_ppl"], cpu["layers"][i]["valid_ppl"], 1e-4, 0);
  }
}

}  // namespace test_analysis_linearize
}  // namespace fathom::analysis
