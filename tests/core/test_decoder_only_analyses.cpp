// Output change vs depth and layer linearization on a decoder-only language model (issue 39
// item 3; methods.md s5.2, s5.4): F is the one causal stack's output over the input tokens,
// --depths sets that stack's layers, linearization replaces its layers ("dec") under the LM
// loss and scores them by validation perplexity. Held to perturbations made by hand, models
// built at each depth here, and a layer made the identity by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/output_shift.h"
#include "analysis/registry.h"
#include "analysis/stream_decomposition.h"
#include "analysis/subject.h"
#include "base/util/error.h"
#include "core/data/dataset.h"
#include "core/model/registry.h"
#include "core/train/loss.h"
#include "tests/support/analysis_fixture.h"

namespace fathom::analysis {
namespace test_decoder_only_analyses {

// analysis_fixture.h's small model, decoder-only, on the synthetic task read as one sequence
// (encoder_layers left at its default: a decoder-only model reads none).
RunConfig lm_config(const std::string& norm, int layers) {
  RunConfig c = small_config(norm, "xavier", RunConfig{}.model.encoder_layers, layers);
  c.model.arch = "decoder_only";
  return c;
}

Subject lm_subject(const RunConfig& config, bool with_model = true) {
  return subject_with_data(config, "lm " + config.model.norm, with_model);
}

// The stack's output, standardized here: (y - mean) / sqrt(var + 1e-5), in float64.
torch::Tensor standardized(TransformerImpl& model, const torch::Tensor& tokens) {
  torch::Tensor y = model.language_model_states(tokens).to(torch::kFloat64);
  return (y - y.mean(-1, true)) / torch::sqrt(y.var(-1, false, true) + 1e-5);
}

// Every matrix but the (tied) embedding: what methods.md s5.2 perturbs, chosen here by rank.
std::vector<torch::Tensor> layer_matrices(TransformerImpl& model) {
  const void* embedding = model.catalog().embeddings.at(0).weight.unsafeGetTensorImpl();
  std::vector<torch::Tensor> out;
  for (auto& p : model.named_parameters())
    if (p.value().dim() >= 2 && p.value().unsafeGetTensorImpl() != embedding)
      out.push_back(p.value());
  return out;
}

TEST(DecoderOnlyAnalyses, TheStatesAreWhatTheTiedOutputProjectionReads) {
  Subject s = lm_subject(lm_config("pre", 2));
  s.model->eval();
  torch::NoGradGuard no_grad;
  const torch::Tensor states = s.model->language_model_states(s.batch.tgt_in);
  ASSERT_EQ(states.dim(), 3);
  EXPECT_EQ(states.size(2), 32);
  const torch::Tensor E = s.model->catalog().embeddings.at(0).weight;
  EXPECT_TRUE(torch::allclose(torch::matmul(states, E.t()),
                              s.model->forward(s.batch.src, s.batch.tgt_in), 1e-5, 1e-5));
}

// `sign`: W* = W - eps sign(dL/dW), L the label-smoothed LM loss of the batch, every matrix but
// the embedding moved; the squared change of the standardized stack output per non-pad input
// token -- computed here by hand.
TEST(DecoderOnlyAnalyses, OutputShiftOfTheOneStackMatchesHandComputation) {
  for (const std::string norm : {"post", "pre"}) {
    SCOPED_TRACE(norm);
    const RunConfig c = lm_config(norm, 3);
    Subject s = lm_subject(c);
    ShiftOptions o;
    o.perturb = "sign";
    o.eps = 1e-3;
    o.label_smoothing = 0.1;
    const double measured = output_shift(*s.model, s.batch, o).mean;
    ShiftOptions none = o;
    none.eps = 0;
    EXPECT_EQ(output_shift(*s.model, s.batch, none).mean, 0.0);

    Subject g = lm_subject(c);  // the same seed: the same parameters
    g.model->eval();
    LossSums sums =
        label_smoothed_loss(g.model->forward(g.batch.src, g.batch.tgt_in), g.batch.tgt_out, 0.1);
    (sums.smoothed / static_cast<double>(sums.tokens)).backward();
    torch::NoGradGuard no_grad;
    const torch::Tensor y0 = standardized(*g.model, g.batch.tgt_in);
    for (auto& w : layer_matrices(*g.model))
      if (w.grad().defined()) w.add_(-o.eps * w.grad().sign());
    const torch::Tensor y1 = standardized(*g.model, g.batch.tgt_in);
    const double expected =
        (y1 - y0).pow(2).sum(-1).index({non_pad(g.batch.tgt_in)}).mean().item<double>();
    ASSERT_GT(expected, 0.0);
    EXPECT_NEAR(measured, expected, 1e-3 * expected);
  }
}

// --depths sets the one stack's layers: each depth's value is output_shift of a model built
// here with that many decoder layers (same seed, same draws).
TEST(DecoderOnlyAnalyses, OutputShiftDepthsAreTheStacksLayers) {
  const RunConfig base = lm_config("post", 1);
  std::vector<Subject> subjects{lm_subject(base, false)};
  AnalysisParams params;
  params.depths = {1, 4};
  params.draws = 2;
  params.progress = false;
  const nlohmann::json result = find_analysis("output-shift").run(subjects, params);
  const auto& config = result["configs"][0];
  EXPECT_EQ(config["arch"], "decoder_only");
  std::vector<double> expected;
  for (int n : params.depths) {
    RunConfig c = base;
    c.model.decoder_layers = n;
    Transformer model = model_at_init(c, subjects[0].vocab_size, subjects[0].batch);
    int layers = 0;
    for (const auto& l : model->catalog().linears) layers = std::max(layers, l.owner.layer + 1);
    EXPECT_EQ(layers, n);
    ShiftOptions o;
    o.draws = 2;
    o.seed = c.train.seed;
    expected.push_back(output_shift(*model, subjects[0].batch, o).mean);
  }
  EXPECT_NEAR(config["shift"][0].get<double>(), expected[0], 1e-12 * expected[0]);
  EXPECT_NEAR(config["shift"][1].get<double>(), expected[1], 1e-12 * expected[1]);
  EXPECT_GT(expected[1], expected[0]) << "Post-LN: more layers, more change (Admin s4.2)";
  std::ostringstream printed;
  find_analysis("output-shift").print(result, printed);
  EXPECT_NE(printed.str().find("decoder-only stack"), std::string::npos) << printed.str();
}

// Pre-LN layer l of the stack becomes x -> x: its branches' last projections output zero.
void make_identity_layer(TransformerImpl& model, int layer) {
  torch::NoGradGuard no_grad;
  for (auto& l : model.catalog().linears)
    if (l.owner.stack == Stack::Decoder && l.owner.layer == layer &&
        (l.role == LinearRole::AttentionOutput || l.role == LinearRole::FfnOut)) {
      l.linear->weight.zero_();
      l.linear->bias.zero_();
    }
}

// Linearization of the one stack: an identity layer is fitted exactly (the same perplexity as
// the full model), a real one is not; no BLEU anywhere, the control scored by perplexity; the
// encoder refused by name.
TEST(DecoderOnlyAnalyses, LinearizeReplacesTheStacksLayersUnderTheLmLoss) {
  Subject s = lm_subject(lm_config("pre", 2));
  make_identity_layer(*s.model, 0);
  std::vector<Subject> subjects{s};
  AnalysisParams p;
  p.progress = false;
  p.steps = 0;
  const nlohmann::json r = find_analysis("linearize").run(subjects, p);
  EXPECT_EQ(r["arch"], "decoder_only");
  ASSERT_EQ(r["layers"].size(), 2u) << "every layer of the one stack";
  EXPECT_EQ(r["layers"][0]["layer"], "dec.1");
  EXPECT_TRUE(r["full"]["bleu"].is_null());
  const double full = r["full"]["valid_ppl"].get<double>();
  EXPECT_GT(full, 1.0);
  EXPECT_NEAR(r["layers"][0]["valid_ppl"].get<double>(), full, 1e-3 * full);
  EXPECT_LT(r["layers"][0]["lstsq_mse"].get<double>(), 1e-8);
  EXPECT_GT(r["layers"][1]["lstsq_mse"].get<double>(), 1e-6);
  const auto& row = r["layers"][1];
  EXPECT_NEAR(
      row["ppl_vs_control_pct"].get<double>(),
      100 * (row["valid_ppl"].get<double>() / row["control"]["valid_ppl"].get<double>() - 1), 1e-9);
  std::ostringstream printed;
  find_analysis("linearize").print(r, printed);
  EXPECT_EQ(printed.str().find("BLEU"), std::string::npos) << printed.str();

  // The task objective is the LM loss: training the map of the real layer may only lower it.
  p.layers = "dec:2";
  p.objective = "task";
  p.steps = 20;
  p.eval_every = 5;
  p.lr = 1e-3;
  const nlohmann::json t = find_analysis("linearize").run(subjects, p);
  EXPECT_LE(t["layers"][0]["valid_objective"].get<double>(),
            t["layers"][0]["valid_objective_start"].get<double>());

  p.layers = "enc:1";
  try {
    find_analysis("linearize").run(subjects, p);
    FAIL() << "a decoder-only model has no encoder";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no enc stack"), std::string::npos) << e.what();
  }
}

}  // namespace test_decoder_only_analyses
}  // namespace fathom::analysis
