// Layer linearization (methods.md s5.4; analysis/linearize.h): the least-squares start, the
// replace_layer hook against a model whose layer is made the identity by zeroing its branch
// outputs (an independent construction), and the analysis end to end on a tiny model.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "analysis/linearize.h"
#include "analysis/registry.h"
#include "analysis/subject.h"
#include "core/data/dataset.h"
#include "core/model/registry.h"

namespace fathom::analysis {
namespace {

RunConfig tiny_config(const std::string& norm) {
  RunConfig c;
  c.device = "cpu";
  c.model.d_model = 16;
  c.model.heads = 2;
  c.model.d_ff = 32;
  c.model.encoder_layers = 2;
  c.model.decoder_layers = 2;
  c.model.norm = norm;
  c.data.task = "synthetic";
  c.data.synthetic.vocab = 8;
  c.data.synthetic.train_size = 120;
  c.data.synthetic.valid_size = 10;
  c.data.synthetic.test_size = 6;
  c.data.max_tokens = 256;
  c.eval.beam = 1;
  return c;
}

Subject tiny_subject(const std::string& norm) {
  Subject s;
  s.config = tiny_config(norm);
  check_model_methods(s.config);
  s.data = std::make_shared<Dataset>(load_dataset(s.config.data, "", ""));
  s.vocab_size = s.data->vocab->size();
  s.batch = first_training_batch(s.config, s.data->train);
  s.model = model_at_init(s.config, s.vocab_size, s.batch);
  s.label = "tiny " + norm;
  return s;
}

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
    LinearLayer identity({stack, 1}, torch::eye(d), torch::zeros({d}));
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

// End to end: a layer that already is linear (the identity) loses nothing when replaced by its
// least-squares fit, while replacing a real layer changes perplexity.
TEST(Linearize, AnalysisKeepsALinearLayerAndReportsEveryRequestedLayer) {
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
  EXPECT_TRUE(r["layers"][2]["bleu"].is_number());

  // The least-squares start is the MSE optimum on the sample: a few small Adam steps on the
  // MSE objective move W, b but stay close to it; task-loss steps move them too.
  p.layers = "enc:2";
  p.objective = "mse";
  p.steps = 20;
  p.lr = 1e-4;
  const nlohmann::json t = find_analysis("linearize").run(subjects, p);
  const double start = t["layers"][0]["lstsq_mse"].get<double>();
  const double end = t["layers"][0]["final_mse"].get<double>();
  EXPECT_NE(end, start);
  EXPECT_LT(end, start * 1.05);
  p.objective = "task";
  p.steps = 3;
  const nlohmann::json task = find_analysis("linearize").run(subjects, p);
  EXPECT_NE(task["layers"][0]["final_mse"].get<double>(), start);
}

}  // namespace
}  // namespace fathom::analysis
