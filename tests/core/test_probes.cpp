// The training probes (core/train/probes.h, core/train/probe_observer.h; docs/probes.md):
// the observer's statistics worked by hand on traces built here (padding, masked keys and the
// future left out), Adam's first update seen by update.ratio (lr * sqrt(n) / ||W||, its
// bias-corrected first step being lr * sign(g)), Admin's output change linear in the learning
// rate for one small update, log Z against log_softmax, the layout a tiny model gives, training
// unchanged by the probes, and the probe keys' bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "analysis/rank_collapse.h"
#include "analysis/subject.h"
#include "base/config/config.h"
#include "base/config/config_io.h"
#include "base/config/lr_schedule.h"
#include "core/data/batch.h"
#include "core/data/dataset.h"
#include "core/model/transformer.h"
#include "core/train/probe_observer.h"
#include "core/train/probes.h"
#include "db/metric_names.h"
#include "tests/support/config_test_helpers.h"
#include "tests/support/input_error.h"
#include "tests/support/trainer_test_fixture.h"

namespace fathom {
namespace test_probes {
using testing::expect_input_error;
using testing::tiny_config;
using testing::TrainerTest;

torch::Tensor bools(std::vector<int> v, std::vector<int64_t> shape) {
  std::vector<uint8_t> b(v.begin(), v.end());
  return torch::tensor(b).to(torch::kBool).view(shape);
}

const ProbeValues& find(const std::vector<ProbeValues>& all, const std::string& probe) {
  for (const auto& p : all)
    if (p.probe == probe) return p;
  throw std::runtime_error("no probe " + probe);
}

// Two heads, two queries (the second is padding), three keys (the third is padding). Head 0
// attends uniformly to the two real keys: entropy ln 2; its largest real |logit| is 2 (the 50
// at the padded key and the 7 of the padded query are left out). Head 1: all weight on key 0,
// entropy 0, largest real |logit| 6.
TEST(ProbeObserver, AttentionStatisticsLeaveOutPaddedQueriesAndKeys) {
  ProbeObserver observer(bools({1, 0}, {1, 2}), bools({1, 1}, {1, 2}));
  SublayerId id{Stack::Encoder, 0, SublayerKind::SelfAttention, 0};
  const torch::Tensor head0 = torch::tensor({1.0f, -2.0f, 50.0f, 7.0f, 0.5f, 3.0f}).view({2, 3});
  const torch::Tensor logits = torch::stack({head0, -3 * head0}).unsqueeze(0);  // [1, 2, 2, 3]
  const torch::Tensor p0 = torch::tensor({0.5f, 0.5f, 0.0f, 0.2f, 0.3f, 0.5f}).view({2, 3});
  const torch::Tensor p1 = torch::tensor({1.0f, 0.0f, 0.0f, 0.2f, 0.3f, 0.5f}).view({2, 3});
  const torch::Tensor probs = torch::stack({p0, p1}).unsqueeze(0);
  observer.on_attention(id, AttentionTrace{logits, probs, bools({0, 0, 1}, {1, 3}), false});

  const auto values = observer.values();
  const auto max_logit = find(values, "attn.max_logit");
  ASSERT_EQ(max_logit.positions,
            (std::vector<std::string>{"enc.0.self_attn.h0", "enc.0.self_attn.h1"}));
  EXPECT_FLOAT_EQ(max_logit.values[0], 2.0f);
  EXPECT_FLOAT_EQ(max_logit.values[1], 6.0f);
  const auto entropy = find(values, "attn.entropy");
  EXPECT_NEAR(entropy.values[0], std::log(2.0), 1e-6);
  EXPECT_NEAR(entropy.values[1], 0.0, 1e-6);
}

// Under the causal mask the future is not attended: logits [[1, 9], [2, -4]] give 4 (the 9 at
// (query 0, key 1) is hidden). Queries of the decoder stack use the target's padding.
TEST(ProbeObserver, CausalMaskHidesTheFutureFromTheLargestLogit) {
  ProbeObserver observer(bools({1}, {1, 1}), bools({1, 1}, {1, 2}));
  SublayerId id{Stack::Decoder, 0, SublayerKind::SelfAttention, 0};
  const torch::Tensor logits = torch::tensor({1.0f, 9.0f, 2.0f, -4.0f}).view({1, 1, 2, 2});
  const torch::Tensor probs = torch::tensor({1.0f, 0.0f, 0.5f, 0.5f}).view({1, 1, 2, 2});
  observer.on_attention(id, AttentionTrace{logits, probs, torch::Tensor(), true});
  const auto values = observer.values();
  EXPECT_FLOAT_EQ(find(values, "attn.max_logit").values[0], 4.0f);
  // Entropies 0 and ln 2 over the two real queries.
  EXPECT_NEAR(find(values, "attn.entropy").values[0], std::log(2.0) / 2, 1e-6);
}

// Stream token 0 = (3, 4): RMS sqrt(25 / 2), largest |x| 4; the padded token (100, 100) is
// left out. Branch (1, -1): RMS 1.
TEST(ProbeObserver, StreamAndBranchStatisticsLeaveOutPadding) {
  ProbeObserver observer(bools({1, 0}, {1, 2}), bools({1}, {1, 1}));
  SublayerId id{Stack::Encoder, 3, SublayerKind::FeedForward, 7};
  const torch::Tensor output = torch::tensor({3.0f, 4.0f, 100.0f, 100.0f}).view({1, 2, 2});
  const torch::Tensor branch = torch::tensor({1.0f, -1.0f, 50.0f, 50.0f}).view({1, 2, 2});
  observer.on_sublayer(id, SublayerTrace{torch::zeros({1, 2, 2}), branch, output, {}});
  const auto values = observer.values();
  EXPECT_EQ(find(values, "stream.rms").positions, std::vector<std::string>{"enc.3.ffn"});
  EXPECT_FLOAT_EQ(find(values, "stream.rms").values[0], std::sqrt(12.5f));
  EXPECT_FLOAT_EQ(find(values, "stream.max_abs").values[0], 4.0f);
  EXPECT_FLOAT_EQ(find(values, "branch.rms").values[0], 1.0f);
}

// Attention sinks: head 0 puts 0.5 and 0.2 on key 0 for its two queries, head 1 1.0 and 0.2;
// only query 0 is real in the first case's source, so the masses are 0.5 and 1.0.
TEST(ProbeObserver, FirstKeyMassIsAveragedOverRealQueries) {
  ProbeObserver observer(bools({1, 0}, {1, 2}), bools({1, 1}, {1, 2}));
  SublayerId id{Stack::Encoder, 0, SublayerKind::SelfAttention, 0};
  const torch::Tensor p0 = torch::tensor({0.5f, 0.5f, 0.0f, 0.2f, 0.3f, 0.5f}).view({2, 3});
  const torch::Tensor p1 = torch::tensor({1.0f, 0.0f, 0.0f, 0.2f, 0.3f, 0.5f}).view({2, 3});
  const torch::Tensor probs = torch::stack({p0, p1}).unsqueeze(0);
  observer.on_attention(
      id, AttentionTrace{torch::zeros({1, 2, 2, 3}), probs, bools({0, 0, 1}, {1, 3}), false});
  const auto values = observer.values();
  const auto mass = find(values, "attn.first_key_mass");
  EXPECT_FLOAT_EQ(mass.values[0], 0.5f);
  EXPECT_FLOAT_EQ(mass.values[1], 1.0f);
  // Decoder side, both queries real: (0.5 + 0.2) / 2 and (1.0 + 0.2) / 2.
  ProbeObserver decoder(bools({1}, {1, 1}), bools({1, 1}, {1, 2}));
  decoder.on_attention(SublayerId{Stack::Decoder, 0, SublayerKind::SelfAttention, 0},
                       AttentionTrace{torch::zeros({1, 2, 2, 3}), probs, torch::Tensor(), false});
  const auto decoder_values = decoder.values();
  const auto both = find(decoder_values, "attn.first_key_mass");
  EXPECT_FLOAT_EQ(both.values[0], 0.35f);
  EXPECT_FLOAT_EQ(both.values[1], 0.6f);
}

// Real tokens (1, -1, 1, -1) and (3, -3, 1, -1), a padded token of 1000s left out. The eight
// values have mean 0, E[x^2] = (4 + 18 + 2) / 8 = 3, E[x^4] = (4 + 162 + 2) / 8 = 21: kurtosis
// 21 / 9 = 7/3. |x| sorted 1 1 1 1 1 1 3 3: max 3, lower median 1, ratio 3. Angles between
// input and output per real token: (1, -1, 1, -1) against (1, 1, 1, 1) is 90 degrees, (3, -3,
// 1, -1) against itself 0: mean 45.
TEST(ProbeObserver, KurtosisMassiveActivationAndAngleWorkedByHand) {
  const torch::Tensor tokens = torch::tensor({1.0f, 1.0f, 0.0f}).view({1, 3, 1});
  const torch::Tensor x =
      torch::tensor({1.0f, -1.0f, 1.0f, -1.0f, 3.0f, -3.0f, 1.0f, -1.0f, 1e3f, 1e3f, 1e3f, 1e3f})
          .view({1, 3, 4});
  const torch::Tensor in =
      torch::tensor({1.0f, 1.0f, 1.0f, 1.0f, 3.0f, -3.0f, 1.0f, -1.0f, 5.0f, 5.0f, 5.0f, 5.0f})
          .view({1, 3, 4});
  EXPECT_NEAR(stream_kurtosis(x, tokens).item<double>(), 7.0 / 3.0, 1e-6);
  EXPECT_NEAR(max_over_median(x, tokens).item<double>(), 3.0, 1e-6);
  EXPECT_NEAR(mean_angle(in, x, tokens).item<double>(), 45.0, 1e-3);
  // A Gaussian stream has kurtosis 3 (to sampling error), whatever its scale and mean.
  torch::manual_seed(1);
  const torch::Tensor g = 5 * torch::randn({4, 500, 64}) + 2;
  EXPECT_NEAR(stream_kurtosis(g, torch::ones({4, 500, 1})).item<double>(), 3.0, 0.05);

  // Through the observer, position by position.
  ProbeObserver observer(bools({1, 1, 0}, {1, 3}), bools({1}, {1, 1}));
  observer.on_sublayer(SublayerId{Stack::Encoder, 0, SublayerKind::FeedForward, 1},
                       SublayerTrace{in, torch::zeros({1, 3, 4}), x, {}});
  const auto observed = observer.values();
  EXPECT_NEAR(find(observed, "stream.kurtosis").values[0], 7.0 / 3.0, 1e-5);
  EXPECT_NEAR(find(observed, "stream.max_over_median").values[0], 3.0, 1e-5);
  EXPECT_NEAR(find(observed, "stream.angle").values[0], 45.0, 1e-3);
}

// Rank collapse worked by hand. Sequence 0: real tokens (1, 0), (0, 1), (1, 1) and a padded
// (5, 5) left out -- cosines 0, 1/sqrt 2, 1/sqrt 2: mean sqrt(2) / 3. Sequence 1: (2, 0),
// (-3, 0) and a zero vector -- cosines -1, 0, 0: mean -1/3. Sequence 2 has one real token, no
// pair: left out. The probe: (sqrt(2) / 3 - 1/3) / 2. Every token the same direction: 1.
TEST(ProbeObserver, TokenCosineWorkedByHand) {
  const torch::Tensor x = torch::tensor({1.0f, 0.0f, 0.0f,  1.0f, 1.0f, 1.0f, 5.0f, 5.0f,  //
                                         2.0f, 0.0f, -3.0f, 0.0f, 0.0f, 0.0f, 9.0f, 9.0f,  //
                                         1.0f, 2.0f, 7.0f,  7.0f, 7.0f, 7.0f, 7.0f, 7.0f})
                              .view({3, 4, 2});
  const torch::Tensor tokens =
      torch::tensor({1.0f, 1.0f, 1.0f, 0.0f, 1.0f, 1.0f, 1.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f})
          .view({3, 4, 1});
  const double expected = (std::sqrt(2.0) / 3.0 - 1.0 / 3.0) / 2.0;
  EXPECT_NEAR(token_cosine(x, tokens).item<double>(), expected, 1e-6);
  // The same through the observer, and a collapsed stream (one direction at every scale).
  ProbeObserver observer(bools({1, 1, 1, 0, 1, 1, 1, 0, 1, 0, 0, 0}, {3, 4}), bools({1}, {1, 1}));
  observer.on_sublayer(SublayerId{Stack::Encoder, 0, SublayerKind::FeedForward, 1},
                       SublayerTrace{x, torch::zeros({3, 4, 2}), x, {}});
  EXPECT_NEAR(find(observer.values(), "stream.token_cosine").values[0], expected, 1e-6);
  const torch::Tensor collapsed = torch::tensor({1.0f, 2.0f, 3.0f}).view({1, 3, 1}) *
                                  torch::tensor({0.6f, -0.8f}).view({1, 1, 2});
  EXPECT_NEAR(token_cosine(collapsed, torch::ones({1, 3, 1})).item<double>(), 1.0, 1e-6);
  // No sequence with a pair of real tokens: no mean to take.
  EXPECT_TRUE(std::isnan(
      token_cosine(collapsed, torch::tensor({1.0f, 0.0f, 0.0f}).view({1, 3, 1})).item<double>()));
}

std::vector<float> probe_at(const db::Store& store, int64_t run, const std::string& probe,
                            int64_t step, std::vector<std::string>* positions = nullptr) {
  const db::ProbeSeries s = store.probe_series(run, probe);
  if (positions) *positions = s.positions;
  for (size_t i = 0; i < s.steps.size(); ++i)
    if (s.steps[i] == step) return s.values[i];
  ADD_FAILURE() << "no " << probe << " at update " << step;
  return {};
}

// Probes every 5 updates of the tiny model (1 encoder and 1 decoder layer, 2 heads): the
// layout names each head of the three attentions and each of the five sub-layers, points at
// updates 5..25, values in their ranges; and training is the same computation as without
// probes (dropout on: the probe passes draw no random numbers), loss for loss.
TEST_F(TrainerTest, ProbesRecordEveryLayerAndLeaveTrainingUnchanged) {
  RunConfig plain = tiny_config();
  plain.train.log_every = 5;
  RunConfig probed = plain;
  probed.train.probe_every = 5;
  probed.train.probe_sentences = 8;
  const int64_t a = new_run(plain), b = new_run(probed);
  ASSERT_EQ(train(plain, a).status, "finished");
  ASSERT_EQ(train(probed, b).status, "finished");
  for (const std::string name : {"train_loss", "valid_loss"}) {
    const auto x = testing::series(*store_, a, name), y = testing::series(*store_, b, name);
    ASSERT_EQ(x.size(), y.size()) << name;
    for (const auto& [step, value] : x) EXPECT_EQ(y.at(step), value) << name << " at " << step;
  }
  EXPECT_TRUE(store_->probe_names(a).empty());
  EXPECT_EQ(store_->probe_names(b),
            (std::vector<std::string>{"attn.entropy", "attn.first_key_mass", "attn.grad_q_over_v",
                                      "attn.max_logit", "branch.rms", "stream.angle",
                                      "stream.kurtosis", "stream.max_abs", "stream.max_over_median",
                                      "stream.rms", "stream.token_cosine", "update.ratio"}));
  const db::ProbeSeries attention = store_->probe_series(b, "attn.max_logit");
  EXPECT_EQ(
      attention.positions,
      (std::vector<std::string>{"enc.0.self_attn.h0", "enc.0.self_attn.h1", "dec.0.self_attn.h0",
                                "dec.0.self_attn.h1", "dec.0.enc_attn.h0", "dec.0.enc_attn.h1"}));
  EXPECT_EQ(attention.steps, (std::vector<int64_t>{5, 10, 15, 20, 25}));
  EXPECT_EQ(store_->probe_series(b, "stream.rms").positions,
            (std::vector<std::string>{"enc.0.self_attn", "enc.0.ffn", "dec.0.self_attn",
                                      "dec.0.enc_attn", "dec.0.ffn"}));
  // Entropy lies in [0, ln S] for S keys; the batch's longest side bounds S.
  for (const auto& row : store_->probe_series(b, "attn.entropy").values)
    for (float h : row) {
      EXPECT_GE(h, 0.0f);
      EXPECT_LE(h, std::log(40.0f));
    }
  // The issue-61 probes in their ranges: kurtosis >= 1 (E[z^4] >= E[z^2]^2), max over median
  // >= 1, an angle in [0, 180] degrees, a probability mass in [0, 1].
  auto each = [&](const std::string& probe, float low, float high) {
    for (const auto& row : store_->probe_series(b, probe).values)
      for (float v : row) {
        EXPECT_GE(v, low) << probe;
        EXPECT_LE(v, high) << probe;
      }
  };
  each("stream.kurtosis", 1.0f, 1e6f);
  each("stream.max_over_median", 1.0f, 1e6f);
  each("stream.angle", 0.0f, 180.0f);
  each("stream.token_cosine", -1.0f, 1.0f);
  each("attn.first_key_mass", 0.0f, 1.0f);
  each("attn.grad_q_over_v", 1e-9f, 1e3f);
  for (const std::string& name : {db::metric::kProbeLogZMean, db::metric::kProbeOutputChange})
    EXPECT_EQ(testing::steps(*store_, b, name), (std::vector<int64_t>{5, 10, 15, 20, 25})) << name;
}

// Adam's first update is -lr_1 * m / (sqrt(v) + eps) with m = g and v = g^2 after bias
// correction: lr_1 * sign(g) per element. For a matrix whose every element has a gradient,
// ||Delta W|| = lr_1 * sqrt(n): the ratio is lr_1 * sqrt(n) / ||W_0||.
TEST_F(TrainerTest, UpdateRatioOfAdamsFirstStepIsTheLearningRateTimesRootN) {
  RunConfig config = tiny_config();
  config.train.max_updates = 1;
  config.train.probe_every = 1;
  config.train.probe_sentences = 4;
  config.train.valid_every = 1;
  const int64_t run = new_run(config);
  ASSERT_EQ(train(config, run).status, "finished");

  const Dataset data = load_dataset(config.data, (dir_ / "cache").string(), "");
  Transformer initial = build_model(config, data.vocab->size(), config.train.seed);
  std::vector<std::string> positions;
  const auto ratios = probe_at(*store_, run, "update.ratio", 1, &positions);
  const double lr1 = learning_rate(config.train, 1);
  int checked = 0;
  for (const auto& p : initial->named_parameters()) {
    if (p.key().find("out.weight") == std::string::npos) continue;  // attention outputs
    const auto at = std::find(positions.begin(), positions.end(), p.key());
    ASSERT_NE(at, positions.end()) << p.key();
    const double expected =
        lr1 * std::sqrt(static_cast<double>(p.value().numel())) / p.value().norm().item<double>();
    EXPECT_NEAR(ratios[at - positions.begin()], expected, 0.01 * expected) << p.key();
    ++checked;
  }
  EXPECT_EQ(checked, 3);  // encoder self, decoder self and encoder attention
}

// attn.grad_q_over_v reads the update's own gradient: with dropout off, update 1 trains on the
// first training batch from the initial model, so its ratios are what `fathom analyze
// rank-collapse` computes at initialization on that batch -- another forward and backward,
// the analysis's own (analysis/rank_collapse.h).
TEST_F(TrainerTest, QueryGradientProbeOfTheFirstUpdateIsTheAnalysisAtInitialization) {
  RunConfig config = tiny_config();
  config.model.dropout = 0;
  config.train.max_updates = 1;
  config.train.probe_every = 1;
  config.train.valid_every = 1;
  const int64_t run = new_run(config);
  ASSERT_EQ(train(config, run).status, "finished");
  std::vector<std::string> positions;
  const auto ratios = probe_at(*store_, run, "attn.grad_q_over_v", 1, &positions);
  EXPECT_EQ(positions,
            (std::vector<std::string>{"enc.0.self_attn", "dec.0.self_attn", "dec.0.enc_attn"}));

  const Dataset data = load_dataset(config.data, (dir_ / "cache").string(), "");
  const Batch batch = analysis::first_training_batch(config, data.train);
  Transformer initial = analysis::model_at_init(config, data.vocab->size(), batch);
  const auto expected =
      analysis::rank_collapse(*initial, batch, config.train.label_smoothing).attention;
  ASSERT_EQ(expected.size(), positions.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(expected[i].sublayer, positions[i]);
    const double ratio = expected[i].q / expected[i].v;
    EXPECT_GT(ratio, 0.0);
    EXPECT_NEAR(ratios[i], ratio, 1e-4 * ratio) << positions[i];
  }
}

// One small first update moves the outputs in proportion to the learning rate (Adam's first
// step is lr * sign(g), the same direction for both): doubling it doubles Admin's relative
// output change, to first order. log Z agrees with logits - log_softmax at the probe point.
TEST_F(TrainerTest, OutputChangeIsLinearInASmallFirstUpdate) {
  RunConfig config = tiny_config();
  config.train.max_updates = 1;
  config.train.warmup = 0;
  config.train.lr = 1e-4;
  config.train.probe_every = 1;
  config.train.valid_every = 1;
  RunConfig doubled = config;
  doubled.train.lr = 2e-4;
  const int64_t a = new_run(config), b = new_run(doubled);
  ASSERT_EQ(train(config, a).status, "finished");
  ASSERT_EQ(train(doubled, b).status, "finished");
  const double change_a = testing::series(*store_, a, db::metric::kProbeOutputChange).at(1);
  const double change_b = testing::series(*store_, b, db::metric::kProbeOutputChange).at(1);
  EXPECT_GT(change_a, 0);
  EXPECT_NEAR(change_b / change_a, 2.0, 0.1);

  // log Z = logit - log_softmax(logit) for any entry: over the probe batch's real target
  // tokens of the updated model, its mean and max are the stored ones.
  const Dataset data = load_dataset(config.data, (dir_ / "cache").string(), "");
  Transformer model = load_model(config, recorded(a, "checkpoint_last"));
  model->eval();
  torch::NoGradGuard no_grad;
  std::vector<size_t> first(static_cast<size_t>(config.train.probe_sentences));
  for (size_t i = 0; i < first.size(); ++i) first[i] = i;
  const Batch batch = collate(data.valid, first);
  const torch::Tensor logits = model->forward(batch.src, batch.tgt_in);
  const torch::Tensor log_z = (logits - torch::log_softmax(logits, -1)).select(-1, 0);
  const torch::Tensor real = log_z.masked_select(batch.tgt_out.ne(TransformerImpl::kPad));
  EXPECT_EQ(real.numel(), batch.tgt_tokens);
  EXPECT_NEAR(testing::series(*store_, a, db::metric::kProbeLogZMean).at(1),
              real.mean().item<double>(), 1e-4);
  EXPECT_NEAR(testing::series(*store_, a, db::metric::kProbeLogZMax).at(1),
              real.max().item<double>(), 1e-4);
}

// A probe batch larger than the validation set, and probes without validation data, are
// refused before anything trains, naming the key; a negative or fractional interval is refused
// by the config reader with file, line and key.
TEST_F(TrainerTest, ProbeSettingsThatCannotWorkAreRefused) {
  RunConfig config = tiny_config();
  config.train.probe_every = 5;
  config.train.probe_sentences = config.data.synthetic.valid_size + 1;
  const int64_t run = new_run(config);
  const InputError e = expect_input_error([&] { train(config, run); });
  EXPECT_EQ(e.field(), "train.probe_sentences");
  EXPECT_NE(std::string(e.what()).find("validation set has 20"), std::string::npos) << e.what();
  EXPECT_TRUE(store_->probe_names(run).empty());

  for (const std::string bad : {"-1", "2.5", "often"}) {
    const InputError parse = expect_input_error([&] {
      check_config(testing::synthetic_config({"train:", "  lr: 0.001", "  probe_every: " + bad}));
    });
    EXPECT_EQ(parse.field(), "train.probe_every") << bad;
    EXPECT_EQ(parse.line(), 5) << bad;
    EXPECT_EQ(parse.file(), "check.yaml") << bad;
  }
}

}  // namespace test_probes
}  // namespace fathom
