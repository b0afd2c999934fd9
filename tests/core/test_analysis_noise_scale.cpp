// `analyze noise-scale` (analysis/noise_scale.cpp; methods.md s5.12) against the gradients taken
// here one batch at a time by a plain backward pass into .grad, flattened into one float64
// vector each, with McCandlish et al.'s two equations solved from those vectors; a layer's
// readings the sum of its matrices'; dropout off, so a second run gives the same numbers; a
// layer whose branch ReZero multiplies by 0 has no gradient and no noise scale.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "analysis/registry.h"
#include "analysis/subject.h"
#include "base/util/error.h"
#include "core/data/batch.h"
#include "core/data/batch_plan.h"
#include "core/data/rng.h"
#include "core/train/batch_stream.h"
#include "core/train/sharpness.h"
#include "tests/support/analysis_fixture.h"

namespace fathom::analysis {
namespace test_analysis_noise_scale {

nlohmann::json noise_scale(Subject& s, int batches, const std::string& batching = "run") {
  AnalysisParams p;
  p.batches = batches;
  p.batching = batching;
  p.progress = false;
  std::vector<Subject> subjects{s};
  return find_analysis("noise-scale").run(subjects, p);
}

struct Gradients {
  std::vector<std::vector<double>> whole, fc2;  // every parameter's; dec.0.ffn.fc2's weight
  std::vector<double> tokens;
};

// Each of the first k batches' gradient by backward() into .grad, dropout off.
Gradients gradients_one_at_a_time(Subject& s, int k) {
  const BatchPlan plan =
      plan_batches(s.data->train, s.config.data.max_tokens, s.config.data.pad_to_multiple);
  BatchStream stream(s.data->train, plan, s.config.train.seed, 0, 0);
  TransformerImpl& model = *s.model;
  torch::Tensor fc2;
  for (const auto& l : model.catalog().linears)
    if (l.name == "dec.0.ffn.fc2") fc2 = l.linear->weight;
  EXPECT_TRUE(fc2.defined());
  model.eval();
  Gradients g;
  for (int b = 0; b < k; ++b) {
    const Batch batch = stream.next();
    model.zero_grad();
    training_objective(model, batch, s.config.train.label_smoothing, s.config.train.z_loss)
        .backward();
    std::vector<double> flat;
    for (const auto& p : model.parameters()) {
      if (!p.requires_grad()) continue;
      const torch::Tensor grad = p.grad().defined() ? p.grad().to(torch::kFloat64).flatten()
                                                    : torch::zeros({p.numel()}, torch::kFloat64);
      flat.insert(flat.end(), grad.data_ptr<double>(), grad.data_ptr<double>() + grad.numel());
    }
    g.whole.push_back(flat);
    const torch::Tensor f = fc2.grad().to(torch::kFloat64).flatten().contiguous();
    g.fc2.emplace_back(f.data_ptr<double>(), f.data_ptr<double>() + f.numel());
    g.tokens.push_back(static_cast<double>(batch.tgt_tokens));
  }
  return g;
}

// tr(Sigma) and |G|^2 from E mean|g_b|^2 = |G|^2 + tr h and E|G_K|^2 = |G|^2 + tr / T.
std::pair<double, double> solved(const std::vector<std::vector<double>>& g,
                                 const std::vector<double>& tokens) {
  const double k = static_cast<double>(g.size());
  double total = 0, h = 0, mean_sq = 0;
  for (double t : tokens) total += t, h += 1 / t / k;
  std::vector<double> mean(g[0].size(), 0.0);
  for (size_t b = 0; b < g.size(); ++b) {
    for (size_t i = 0; i < mean.size(); ++i) {
      mean[i] += tokens[b] / total * g[b][i];
      mean_sq += g[b][i] * g[b][i] / k;
    }
  }
  double big = 0;
  for (double m : mean) big += m * m;
  const double trace = (mean_sq - big) / (h - 1 / total);
  return {trace, big - trace / total};
}

TEST(NoiseScaleAnalysis, EqualsTheEquationsSolvedFromTheBatchesGradients) {
  Subject s = subject_with_data(small_config("post", "xavier", 2, 1), "post");
  const int k = 5;
  s.model->train();
  const nlohmann::json r = noise_scale(s, k);
  EXPECT_TRUE(s.model->is_training());  // dropout was off for it, and is on again
  const Gradients g = gradients_one_at_a_time(s, k);
  double tokens = 0;
  for (double t : g.tokens) tokens += t;
  EXPECT_EQ(r["batches"], k);
  EXPECT_DOUBLE_EQ(r["target_tokens"].get<double>(), tokens);
  const auto [trace, grad_sq] = solved(g.whole, g.tokens);
  EXPECT_NEAR(r["model"]["trace"].get<double>(), trace, 1e-5 * std::abs(trace));
  EXPECT_NEAR(r["model"]["grad_sq"].get<double>(), grad_sq, 1e-5 * std::abs(grad_sq));
  EXPECT_NEAR(r["model"]["b_simple"].get<double>(), trace / grad_sq, 1e-4 * trace / grad_sq);
  bool found = false;
  for (const auto& b : r["blocks"])
    if (b["block"] == "dec.0.ffn.fc2") {
      found = true;
      const auto [t, g2] = solved(g.fc2, g.tokens);
      EXPECT_NEAR(b["trace"].get<double>(), t, 1e-5 * std::abs(t));
      EXPECT_NEAR(b["grad_sq"].get<double>(), g2, 1e-5 * std::abs(g2));
    }
  EXPECT_TRUE(found);

  // A layer is its matrices together: readings add, so |G_K|^2 does; the model has more
  // (biases, norms) than all its matrices.
  ASSERT_EQ(r["layers"].size(), 3u);
  double all_blocks = 0;
  for (const auto& layer : r["layers"]) {
    double sum = 0;
    for (const auto& b : r["blocks"])
      if (b["stack"] == layer["stack"] && b["layer"] == layer["layer"])
        sum += b["mean_grad_sq"].get<double>();
    EXPECT_NEAR(layer["mean_grad_sq"].get<double>(), sum, 1e-9 * sum) << layer["group"];
  }
  for (const auto& b : r["blocks"]) all_blocks += b["mean_grad_sq"].get<double>();
  EXPECT_GT(r["model"]["mean_grad_sq"].get<double>(), all_blocks);
  EXPECT_EQ(r["layers"][0]["group"], "enc.0");
  EXPECT_EQ(r["layers"][2]["group"], "dec.0");
  // Dropout off: the same batches give the same numbers again.
  EXPECT_EQ(noise_scale(s, k)["model"], r["model"]);
  // McCandlish et al. eq. 2.11 at the update size (one batch here).
  const double update = r["update_tokens"].get<double>();
  EXPECT_DOUBLE_EQ(update, tokens / k);
  EXPECT_NEAR(r["model"]["steps_over_min"].get<double>(), 1 + trace / grad_sq / update, 1e-4);
}

// ReZero at initialization multiplies every branch by 0: no layer weight reaches the loss, so
// each layer's gradient is exactly 0 in every batch -- no signal, no noise, no noise scale --
// while the embedding's is not.
TEST(NoiseScaleAnalysis, AGroupWithoutGradientHasNoNoiseScale) {
  Subject s = subject_with_data(small_config("post", "rezero", 2, 1), "rezero");
  const nlohmann::json r = noise_scale(s, 4);
  for (const auto& l : r["layers"]) {
    EXPECT_EQ(l["trace"].get<double>(), 0.0) << l["group"];
    EXPECT_EQ(l["grad_sq"].get<double>(), 0.0) << l["group"];
    EXPECT_TRUE(l["b_simple"].is_null()) << l["group"];
    EXPECT_FALSE(l["resolved"].get<bool>()) << l["group"];
  }
  EXPECT_GT(r["blocks"][0]["grad_sq"].get<double>(), 0.0);
  EXPECT_TRUE(r["model"]["b_simple"].is_number());
}

// --batching random: batches of pairs drawn at random, each within data.max_tokens (as the
// trainer pads it) and full -- the next pair would not have fitted -- no pair twice; another
// sample than the run's own batches, the same one again for the same seed.
TEST(NoiseScaleAnalysis, RandomBatchesAreWholeDistinctPairsWithinTheBudget) {
  RunConfig c = small_config("pre", "xavier", 1, 1);
  c.data.max_tokens = 96;
  Subject s = subject_with_data(c, "random");
  const nlohmann::json random = noise_scale(s, 6, "random");
  const nlohmann::json run = noise_scale(s, 6, "run");
  EXPECT_EQ(random["batching"], "random");
  EXPECT_EQ(noise_scale(s, 6, "random")["model"], random["model"]);
  EXPECT_NE(random["model"]["mean_grad_sq"], run["model"]["mean_grad_sq"]);
  // The update is the run's, whichever batches the noise was read over.
  EXPECT_EQ(random["update_tokens"], run["update_tokens"]);
  EXPECT_LT(random["tokens_per_batch"].get<double>(), run["tokens_per_batch"].get<double>());
  // The batches themselves, drawn the same way: the analysis reports their token total.
  std::mt19937_64 rng(derive_seed(c.train.seed, 0x6e6f697365ULL));  // the "noise" stream
  const std::vector<std::size_t> order = random_permutation(s.data->train.size(), rng);
  std::set<std::size_t> seen;
  double tokens = 0;
  size_t next = 0;
  for (int b = 0; b < 6; ++b) {
    std::vector<std::size_t> ids{order[next++]};
    while (padded_tokens(s.data->train, ids, 1) <= c.data.max_tokens) ids.push_back(order[next++]);
    ids.pop_back();
    --next;
    EXPECT_GT(ids.size(), 1u);
    for (std::size_t id : ids) EXPECT_TRUE(seen.insert(id).second) << id;
    tokens += static_cast<double>(collate(s.data->train, ids).tgt_tokens);
  }
  EXPECT_DOUBLE_EQ(random["target_tokens"].get<double>(), tokens);
}

TEST(NoiseScaleAnalysis, RefusesFewerThanTwoBatchesOrMoreThanAnEpochHas) {
  Subject s = subject_with_data(small_config("pre", "xavier", 1, 1), "pre");
  for (const std::string batching : {"run", "random"})
    for (int k : {1, 100000}) {
      try {
        noise_scale(s, k, batching);
        ADD_FAILURE() << k << " " << batching << " batches accepted";
      } catch (const InputError& e) {
        EXPECT_EQ(e.field(), "--batches");
      }
    }
}

}  // namespace test_analysis_noise_scale
}  // namespace fathom::analysis
