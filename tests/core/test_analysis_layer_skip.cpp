// Layer skip (methods.md s5.8; analysis/layer_skip.h): a layer whose branches output zero by
// construction changes nothing when skipped; under Pre-LN-like styles skipping a layer is
// exactly the model with that layer's branches zeroed (an independent construction); a 1-layer
// Post-LN language model skipped is its embedding read straight by the output projection, the
// loss computed here by hand; every layer of both stacks (and of a depth-wise LSTM) gets a row.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/layer_skip.h"
#include "analysis/registry.h"
#include "analysis/subject.h"
#include "base/util/error.h"
#include "core/data/batch.h"
#include "core/data/dataset.h"
#include "core/data/vocab.h"
#include "core/model/embedding.h"
#include "core/model/registry.h"
#include "tests/support/analysis_fixture.h"

namespace fathom::analysis {
namespace test_analysis_layer_skip {

Subject skip_subject(const RunConfig& config) {
  return subject_with_data(config, "skip " + config.model.norm);
}

// Layer `layer` of `stack` outputs zero branches: its attention and FFN output projections are
// zero (a Pre-LN layer is then x -> x).
void zero_branches(TransformerImpl& model, Stack stack, int layer) {
  torch::NoGradGuard no_grad;
  for (auto& l : model.catalog().linears)
    if (l.owner.stack == stack && l.owner.layer == layer &&
        (l.role == LinearRole::AttentionOutput || l.role == LinearRole::FfnOut)) {
      l.linear->weight.zero_();
      l.linear->bias.zero_();
    }
}

TEST(LayerSkip, ALayerWhoseBranchIsZeroChangesNothing) {
  for (const std::string arch : {"encoder_decoder", "decoder_only"}) {
    SCOPED_TRACE(arch);
    RunConfig c = small_config("pre", "xavier", 2, 2);
    c.model.arch = arch;
    Subject s = skip_subject(c);
    zero_branches(*s.model, Stack::Decoder, 1);
    const LayerSkipResult r = layer_skip(*s.model, s.data->valid, 512, 0.1);
    ASSERT_EQ(r.layers.size(), arch == "decoder_only" ? 2u : 4u);
    for (const auto& row : r.layers) {
      const double change = row.skipped.nll - r.full.nll;
      if (row.layer.stack == Stack::Decoder && row.layer.layer == 1)
        EXPECT_NEAR(change, 0.0, 1e-6) << row.layer.name();
      else
        EXPECT_GT(std::abs(change), 1e-4) << row.layer.name();
      EXPECT_EQ(row.skipped.tokens, r.full.tokens);
    }
  }
}

// Under a Pre-LN-like style the skip is the branch dropped: the loss with layer l skipped equals
// the full loss of a copy whose layer l outputs zero branches.
TEST(LayerSkip, PreLnLikeSkipIsTheLayerWithItsBranchesZeroed) {
  for (const std::string norm : {"pre", "peri", "lns", "dyt"}) {
    SCOPED_TRACE(norm);
    Subject s = skip_subject(small_config(norm, "xavier", 2, 2));
    const LayerSkipResult r = layer_skip(*s.model, s.data->valid, 512, 0.1);
    for (const auto& row : r.layers) {
      Subject zeroed = skip_subject(small_config(norm, "xavier", 2, 2));
      zero_branches(*zeroed.model, row.layer.stack, row.layer.layer);
      const LossReport expected =
          evaluate_loss(*zeroed.model, s.data->valid, 512, torch::kCPU, 0.1);
      EXPECT_NEAR(row.skipped.nll, expected.nll, 1e-5) << row.layer.name();
    }
  }
}

// One Post-LN layer, decoder-only: skipped, the logits are the embedding output read by the
// tied projection, (E[x] sqrt(d) + P) E^T (methods.md s1; Post-LN has no final norm). The NLL
// per target token of two sequences is computed from that formula directly.
TEST(LayerSkip, OneLayerPostLnLanguageModelWorkedByHand) {
  RunConfig c = small_config("post", "xavier", 2, 1);
  c.model.arch = "decoder_only";
  Subject s = skip_subject(c);
  std::vector<Example> examples = {Example{{}, {5, 6, 7, 8, kEosId}}, Example{{}, {9, 4, kEosId}}};
  const LayerSkipResult r = layer_skip(*s.model, examples, 512, 0.0);
  ASSERT_EQ(r.layers.size(), 1u);

  torch::NoGradGuard no_grad;
  const Batch batch = collate(examples, {0, 1});
  const torch::Tensor E = s.model->catalog().embeddings.at(0).weight;
  const int64_t T = batch.tgt_in.size(1), d = E.size(1);
  const torch::Tensor h = E.index({batch.tgt_in}) * std::sqrt(static_cast<double>(d)) +
                          sinusoidal_positions(T, d).unsqueeze(0);
  const torch::Tensor log_p = torch::log_softmax(torch::matmul(h, E.t()), -1);
  const torch::Tensor picked = log_p.gather(-1, batch.tgt_out.unsqueeze(-1)).squeeze(-1);
  const torch::Tensor real = batch.tgt_out.ne(kPadId);
  const double nll = -picked.masked_select(real).sum().item<double>() / real.sum().item<double>();
  EXPECT_EQ(r.full.tokens, 8);  // eos included
  EXPECT_NEAR(r.layers[0].skipped.nll, nll, 1e-5);
  EXPECT_NEAR(r.layers[0].skipped.ppl, std::exp(nll), 1e-4 * std::exp(nll));
  EXPECT_GT(std::abs(r.layers[0].skipped.nll - r.full.nll), 1e-4);  // the layer did something
}

// The registered analysis: one row per layer of both stacks, changes against the full model,
// also for the depth-wise LSTM (its step hands its state on), hyper-connections (the packed
// streams, or the embedding before the first layer copies it) and Post-LN; no validation data is
// refused naming data.valid.
TEST(LayerSkip, AnalysisRowsForEveryStyleAndConnection) {
  for (const auto& [norm, connection] :
       std::vector<std::pair<std::string, std::string>>{{"post", "residual"},
                                                        {"mix", "residual"},
                                                        {"pre", "depthwise_lstm"},
                                                        {"pre", "hyper"}}) {
    SCOPED_TRACE(norm + " " + connection);
    RunConfig c = small_config(norm, "xavier", 2, 3);
    c.model.connection = connection;
    if (connection == "hyper") c.model.hc_streams = 3;  // its state: the packed streams
    std::vector<Subject> subjects{skip_subject(c)};
    const nlohmann::json j = find_analysis("layer-skip").run(subjects, AnalysisParams{});
    ASSERT_EQ(j["layers"].size(), 5u);
    EXPECT_EQ(j["layers"][0]["layer"], "enc.1");
    EXPECT_EQ(j["layers"][4]["layer"], "dec.3");
    EXPECT_EQ(j["connection"], connection);
    const double full = j["full"]["valid_nll"].get<double>();
    for (const auto& row : j["layers"]) {
      ASSERT_TRUE(row["valid_nll"].is_number()) << row.dump();
      EXPECT_NEAR(row["nll_change"].get<double>(), row["valid_nll"].get<double>() - full, 1e-9);
      EXPECT_NEAR(row["ppl_change_pct"].get<double>(),
                  100 * (row["valid_ppl"].get<double>() / j["full"]["valid_ppl"].get<double>() - 1),
                  1e-6);
    }
    std::ostringstream printed;
    find_analysis("layer-skip").print(j, printed);
    EXPECT_NE(printed.str().find("dec.3"), std::string::npos) << printed.str();
  }
  std::vector<Subject> subjects{skip_subject(small_config("pre", "xavier", 1, 1))};
  subjects[0].data->valid.clear();
  EXPECT_THROW(find_analysis("layer-skip").run(subjects, AnalysisParams{}), InputError);
}

}  // namespace test_analysis_layer_skip
}  // namespace fathom::analysis
