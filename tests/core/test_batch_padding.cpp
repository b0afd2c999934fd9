// data.pad_to_multiple (core/data/batch_plan.h): training batches whose lengths are padded up to a
// multiple, planned under the budget with the padded lengths. Hand-computed plans and shapes;
// collated batches that hold the unpadded one's ids with pad columns after them; and, for every
// registered norm style, init and connection, a padded batch's objective and gradients equal to
// the unpadded batch's (every mask already leaves pads out: the padding shapes tensors only).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "core/data/batch.h"
#include "core/data/dataset.h"
#include "core/data/example.h"
#include "core/data/vocab.h"
#include "core/model/registry.h"
#include "core/model/transformer.h"
#include "core/train/batch_stream.h"
#include "core/train/objective.h"
#include "tests/support/trainer_test_fixture.h"

namespace fathom {
namespace test_batch_padding {

// A pair with `s` source and `t` target ids, eos included (make_example appends it).
Example pair_of(int64_t s, int64_t t, int64_t first_id = 4) {
  std::vector<int64_t> src, tgt;
  for (int64_t i = 0; i + 1 < s; ++i) src.push_back(first_id + i % 9);
  for (int64_t i = 0; i + 1 < t; ++i) tgt.push_back(first_id + (i * 5) % 9);
  return make_example(src, tgt);
}

TEST(BatchPadding, PaddedLengthRoundsUpAndKeepsAnEmptySide) {
  EXPECT_EQ(padded_length(0, 8), 0);  // a decoder-only model's source
  EXPECT_EQ(padded_length(1, 8), 8);
  EXPECT_EQ(padded_length(8, 8), 8);
  EXPECT_EQ(padded_length(9, 8), 16);
  EXPECT_EQ(padded_length(5, 1), 5);
}

// Lengths (src, tgt) with eos: (2,3) (3,3) (5,4) (6,6), budget 12. Unpadded the greedy cut
// gives {(2,3),(3,3)} (3 x 2 = 6) and {(5,4),(6,6)} (6 x 2 = 12). Padded to 4 the lengths are
// 4, 4, 8, 8: {(2,3),(3,3)} (4 x 2), then 8 x 3 and 8 x 2 exceed 12: each of the last two alone.
TEST(BatchPadding, ThePlanBudgetsThePaddedLengths) {
  const std::vector<Example> ex{pair_of(6, 6), pair_of(2, 3), pair_of(5, 4), pair_of(3, 3)};
  const TokenPairs pairs = TokenPairs::from_examples(ex);

  const BatchPlan plain = plan_batches(ex, 12);
  ASSERT_EQ(plain.size(), 2u);
  EXPECT_EQ(plain.batch(0), (std::vector<size_t>{1, 3}));
  EXPECT_EQ(plain.batch(1), (std::vector<size_t>{2, 0}));
  const BatchShapes plain_shapes = batch_shapes(pairs, plain);
  EXPECT_EQ(plain_shapes.distinct, 2u);  // (2,3,3) and (2,6,6)
  EXPECT_EQ(plain_shapes.padded_positions, 2 * 3 + 2 * 6);
  EXPECT_EQ(plain_shapes.longer_side_tokens, 3 + 3 + 5 + 6);

  const BatchPlan padded = plan_batches(ex, 12, 4);
  EXPECT_EQ(padded.pad_multiple, 4);
  ASSERT_EQ(padded.size(), 3u);
  EXPECT_EQ(padded.batch(0), (std::vector<size_t>{1, 3}));
  EXPECT_EQ(padded.batch(1), (std::vector<size_t>{2}));
  EXPECT_EQ(padded.batch(2), (std::vector<size_t>{0}));
  const BatchShapes padded_shapes = batch_shapes(pairs, padded);
  EXPECT_EQ(padded_shapes.distinct, 3u);  // (2,4,4), (1,8,4), (1,8,8)
  EXPECT_EQ(padded_shapes.padded_positions, 2 * 4 + 8 + 8);
  EXPECT_EQ(padded_shapes.longer_side_tokens, 17);

  EXPECT_THROW(plan_batches(ex, 12, 0), std::invalid_argument);
}

// Over a corpus of varied lengths: every example once, each batch within the budget counted
// padded (unless one example alone exceeds it), the stream's tensors the unpadded collate's
// with pad columns to the next multiple, the token counts unchanged; fewer shapes.
TEST(BatchPadding, StreamedBatchesAreTheUnpaddedOnesWithPadColumns) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int64_t> len(1, 40);
  std::vector<Example> ex;
  for (int i = 0; i < 600; ++i) ex.push_back(pair_of(len(rng), len(rng)));
  const TokenPairs pairs = TokenPairs::from_examples(ex);
  const int64_t budget = 256, m = 8;
  const BatchPlan plan = plan_batches(pairs, budget, m);

  std::vector<int> seen(ex.size(), 0);
  BatchStream stream(pairs, plan, /*seed=*/3, /*epoch=*/0, /*position=*/0);
  for (size_t k = 0; k < plan.size(); ++k) {
    const Batch b = stream.next();
    const Batch plain = collate(ex, b.ids);
    for (size_t id : b.ids) ++seen[id];
    if (b.rows() > 1) {
      EXPECT_LE(padded_tokens(ex, b.ids, m), budget);
    }
    const int64_t S = plain.src.size(1), T = plain.tgt_out.size(1);
    ASSERT_EQ(b.src.size(1), padded_length(S, m));
    ASSERT_EQ(b.tgt_in.size(1), padded_length(T, m));
    ASSERT_EQ(b.tgt_out.size(1), padded_length(T, m));
    EXPECT_TRUE(b.src.slice(1, 0, S).equal(plain.src));
    EXPECT_TRUE(b.tgt_in.slice(1, 0, T).equal(plain.tgt_in));
    EXPECT_TRUE(b.tgt_out.slice(1, 0, T).equal(plain.tgt_out));
    EXPECT_TRUE(b.src.slice(1, S).eq(kPadId).all().item<bool>());
    EXPECT_TRUE(b.tgt_in.slice(1, T).eq(kPadId).all().item<bool>());
    EXPECT_TRUE(b.tgt_out.slice(1, T).eq(kPadId).all().item<bool>());
    EXPECT_EQ(b.src_tokens, plain.src_tokens);
    EXPECT_EQ(b.tgt_tokens, plain.tgt_tokens);
  }
  EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
  EXPECT_LT(batch_shapes(pairs, plan).distinct,
            batch_shapes(pairs, plan_batches(pairs, budget)).distinct);
}

constexpr int64_t kVocab = 14;

// The objective (label smoothing and z-loss on) and every parameter's gradient for one batch,
// dropout off so both batches see the same function.
struct PassResult {
  double objective = 0;
  std::vector<torch::Tensor> grads;
};

PassResult pass(const RunConfig& config, const Batch& b) {
  Transformer model = build_model(config, kVocab, /*seed=*/7);
  model->train();
  const ObjectiveSums sums =
      objective_sums(model->forward(b.src, b.tgt_in), b.tgt_out, 0.1, 1e-3, false);
  sums.objective.backward();
  PassResult out;
  out.objective = sums.objective.item<double>();
  for (const auto& p : model->parameters())
    if (p.grad().defined()) out.grads.push_back(p.grad().clone());
  return out;
}

void expect_same_pass(const RunConfig& config, const std::string& what) {
  std::vector<Example> ex;
  const bool lm = is_decoder_only(config.model);
  for (int64_t r = 0; r < 5; ++r) {
    ex.push_back(pair_of(3 + r, 2 + (r * 3) % 6, 4 + r));
    if (lm) ex.back().src.clear();  // a language model's example: its text in tgt alone
  }
  std::vector<size_t> ids{0, 1, 2, 3, 4};
  const Batch plain = collate(ex, ids), padded = collate(ex, ids, 8);
  ASSERT_GT(padded.tgt_out.size(1), plain.tgt_out.size(1)) << what;
  const PassResult a = pass(config, plain), b = pass(config, padded);
  EXPECT_NEAR(b.objective, a.objective, 1e-5 * std::abs(a.objective)) << what;
  ASSERT_EQ(a.grads.size(), b.grads.size()) << what;
  for (size_t i = 0; i < a.grads.size(); ++i) {
    const double scale = 1.0 + a.grads[i].abs().max().item<double>();
    EXPECT_LE((a.grads[i] - b.grads[i]).abs().max().item<double>(), 1e-5 * scale)
        << what << ": gradient " << i;
  }
}

RunConfig model_config() {
  RunConfig c = testing::tiny_config();
  c.device = "cpu";
  c.model.encoder_layers = 2;
  c.model.decoder_layers = 2;
  c.model.dropout = c.model.attention_dropout = c.model.activation_dropout = 0.0;
  return c;
}

TEST(BatchPadding, EveryNormStyleComputesThePaddedBatchAsTheUnpadded) {
  for (const std::string& norm : norm_choices()) {
    RunConfig c = model_config();
    c.model.norm = norm;
    expect_same_pass(c, "norm " + norm);
  }
}

TEST(BatchPadding, EveryInitAndConnectionComputesThePaddedBatchAsTheUnpadded) {
  for (const std::string& init : methods().inits.names()) {
    RunConfig c = model_config();
    c.model.init = init;
    expect_same_pass(c, "init " + init);
  }
  for (const std::string& connection : methods().connections.names()) {
    RunConfig c = model_config();
    c.model.norm = "pre";
    c.model.connection = connection;
    try {  // the multi-stream connections (hyper, mhc) need a stream count, the others none
      if (const auto& check = methods().connections.find(connection)->check) check(c);
    } catch (const std::exception&) {
      c.model.hc_streams = 2;
    }
    expect_same_pass(
        c, "connection " + connection + " (streams " + std::to_string(c.model.hc_streams) + ")");
  }
}

TEST(BatchPadding, GatedQkNormedReparameterisedAndDecoderOnlyModelsToo) {
  RunConfig gated = model_config();
  gated.model.attention_gate = "headwise";
  gated.model.qk_norm = true;
  expect_same_pass(gated, "headwise gate, qk_norm");
  RunConfig sigma = model_config();
  sigma.model.norm = "pre";
  sigma.model.sigma_reparam = true;
  expect_same_pass(sigma, "sigma_reparam");
  RunConfig lm = model_config();
  lm.model.arch = "decoder_only";
  lm.model.norm = "pre";
  expect_same_pass(lm, "decoder_only");
}

using TrainerTest = testing::TrainerTest;

// Budgets so large that an epoch is one batch either way: the padded run trains on the same
// batches as the unpadded one, so its losses are the unpadded run's (within float sums over
// longer rows). Its tag data.batches describes the padded plan, computed here apart.
TEST_F(TrainerTest, PaddedBatchesTrainAsTheUnpaddedOnesAndTheRunSaysItsShapes) {
  RunConfig plain = testing::tiny_config();
  plain.model.dropout = plain.model.attention_dropout = plain.model.activation_dropout = 0.0;
  plain.data.max_tokens = 100000;
  plain.train.max_updates = 12;
  plain.train.log_every = 1;
  plain.train.valid_every = 6;
  plain.eval.max_sentences = 1;
  RunConfig padded = plain;
  padded.data.pad_to_multiple = 8;
  const int64_t a = new_run(plain), b = new_run(padded);
  ASSERT_EQ(train(plain, a).status, "finished");
  ASSERT_EQ(train(padded, b).status, "finished");
  for (const char* metric : {"train_loss", "valid_loss"}) {
    const auto want = testing::series(*store_, a, metric);
    const auto got = testing::series(*store_, b, metric);
    ASSERT_EQ(got.size(), want.size()) << metric;
    ASSERT_FALSE(want.empty()) << metric;
    for (const auto& [step, value] : want)
      EXPECT_NEAR(got.at(step), value, 1e-4 * std::abs(value)) << metric << " at " << step;
  }

  // At the tests' usual budget the padded plan differs, and the tag says which one trained.
  padded.data.max_tokens = plain.data.max_tokens = 256;
  const int64_t c = new_run(padded);
  ASSERT_EQ(train(padded, c).status, "finished");
  const Dataset data = load_dataset(padded.data, (dir_ / "cache").string(), "");
  const BatchPlan padded_plan = plan_batches(data.train, 256, 8);
  const BatchPlan plain_plan = plan_batches(data.train, 256);
  const std::string want =
      describe_batch_shapes(batch_shapes(data.train, padded_plan), padded_plan.size(), 8);
  EXPECT_EQ(store_->tags(c).at("data.batches"), want);
  EXPECT_NE(want,
            describe_batch_shapes(batch_shapes(data.train, plain_plan), plain_plan.size(), 1));
  EXPECT_NE(want.find("pad_to_multiple 8"), std::string::npos) << want;
}

}  // namespace test_batch_padding
}  // namespace fathom
