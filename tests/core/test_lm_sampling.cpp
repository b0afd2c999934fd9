// A language model's sample continuations (core/decode/lm_continue.h, core/train/valid_samples.h;
// issue 39 item 2): top-k sampling draws each token from the softmax over the k largest logits
// -- checked token by token against the model's own logits and, for the first token, in
// frequency against that softmax -- k = 1 is greedy, a seed gives the same text; a training run
// stores greedy and top-k continuations at each validation without changing its training.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/data/dataset.h"
#include "core/data/vocab.h"
#include "core/decode/lm_continue.h"
#include "core/train/valid_samples.h"
#include "db/metric_names.h"
#include "db/valid_samples.h"
#include "tests/support/trainer_test_fixture.h"

namespace fathom {
namespace test_lm_sampling {
using testing::tiny_config;
using testing::TrainerTest;
using Ids = std::vector<int64_t>;

RunConfig decoder_only(RunConfig c) {
  c.model.arch = "decoder_only";
  c.model.decoder_layers = 2;
  return c;
}

constexpr int64_t kVocab = 14;

Transformer untrained_model() {
  RunConfig c = decoder_only(tiny_config());
  Transformer model = build_model(c, kVocab, 3);
  model->eval();
  return model;
}

// Logits of the next token after bos + prefix, computed here.
torch::Tensor next_logits(TransformerImpl& model, const Ids& prefix) {
  Ids input{kBosId};
  input.insert(input.end(), prefix.begin(), prefix.end());
  torch::NoGradGuard no_grad;
  return model.forward(torch::Tensor(), torch::tensor(input).view({1, -1}))[0][-1];
}

TEST(LanguageModelSampling, TopOneIsGreedyAndASeedGivesTheSameText) {
  Transformer model = untrained_model();
  const std::vector<Ids> prompts{{5, 6}, {7}, {8, 9, 10}};
  const auto greedy = greedy_continuations(*model, prompts, 12, torch::kCPU);
  EXPECT_EQ(top_k_continuations(*model, prompts, 12, 1, 99, torch::kCPU), greedy);
  const auto a = top_k_continuations(*model, prompts, 12, 5, 7, torch::kCPU);
  EXPECT_EQ(top_k_continuations(*model, prompts, 12, 5, 7, torch::kCPU), a);
  EXPECT_NE(top_k_continuations(*model, prompts, 12, 5, 8, torch::kCPU), a)
      << "another seed, another draw (three 12-token texts over 5 choices each)";
  EXPECT_THROW(top_k_continuations(*model, prompts, 12, 0, 7, torch::kCPU), std::invalid_argument);
}

// Every drawn token is among the k largest logits at its step (ties aside: an untrained model's
// logits are distinct floats).
TEST(LanguageModelSampling, EveryTokenIsAmongTheTopK) {
  Transformer model = untrained_model();
  const int k = 3;
  const Ids prompt{5, 6};
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    const Ids added = top_k_continuations(*model, {prompt}, 10, k, seed, torch::kCPU)[0];
    Ids prefix = prompt;
    for (int64_t token : added) {
      const torch::Tensor logits = next_logits(*model, prefix);
      const double kth = std::get<0>(logits.topk(k))[k - 1].item<double>();
      EXPECT_GE(logits[token].item<double>(), kth) << "seed " << seed << " token " << token;
      prefix.push_back(token);
    }
  }
}

// The first token's frequencies over many draws follow softmax(top-k logits): each of the k
// within 4.5 binomial standard deviations of its probability, and nothing outside the top k.
TEST(LanguageModelSampling, FirstTokenFrequenciesFollowTheTopKSoftmax) {
  Transformer model = untrained_model();
  {  // Sharpen the untrained model so the top-k probabilities differ clearly.
    torch::NoGradGuard no_grad;
    model->catalog().embeddings.at(0).weight.mul_(4.0);
  }
  const int k = 3, draws = 1500;
  const Ids prompt{5, 6};
  const torch::Tensor logits = next_logits(*model, prompt);
  const auto [values, ids] = logits.topk(k);
  const torch::Tensor p = torch::softmax(values.to(torch::kFloat64), 0);
  // Far enough from uniform that a sampler ignoring the logits would fail by many sd.
  ASSERT_GT((p[0] - p[k - 1]).item<double>(), 0.15) << p;
  const auto drawn =
      top_k_continuations(*model, std::vector<Ids>(draws, prompt), 1, k, 11, torch::kCPU);
  std::vector<int> counts(k, 0);
  int eos = 0;
  for (const auto& d : drawn) {
    const int64_t token = d.empty() ? kEosId : d[0];
    eos += d.empty();
    for (int i = 0; i < k; ++i) counts[i] += token == ids[i].item<int64_t>();
  }
  int total = 0;
  for (int i = 0; i < k; ++i) {
    const double pi = p[i].item<double>();
    const double sd = std::sqrt(draws * pi * (1 - pi));
    EXPECT_NEAR(counts[i], draws * pi, 4.5 * sd) << "rank " << i << " p " << pi;
    total += counts[i];
  }
  // An eos drawn ends the text empty: it counts for its rank when eos is in the top k.
  EXPECT_EQ(total, draws) << eos << " eos";
}

// A training run keeps, at each validation, the greedy and the top-k continuation of the first
// validation prompts; the last equal to a fresh draw from the run's last checkpoint with the
// seed of that update; the training itself the same as without them.
TEST_F(TrainerTest, DecoderOnlyRunsKeepGreedyAndTopKSamples) {
  RunConfig plain = decoder_only(tiny_config());  // 25 updates, validated at 10, 20, 25
  plain.train.valid_samples = 0;
  RunConfig sampled = decoder_only(tiny_config());
  sampled.train.valid_samples = 2;
  sampled.train.valid_sample_top_k = 4;
  const int64_t a = new_run(plain), b = new_run(sampled);
  ASSERT_EQ(train(plain, a).status, "finished");
  ASSERT_EQ(train(sampled, b).status, "finished");
  EXPECT_EQ(testing::series(*store_, a, db::metric::kTrainLoss),
            testing::series(*store_, b, db::metric::kTrainLoss));

  const auto samples = db::validation_samples(store_->tags(b));
  ASSERT_EQ(samples.size(), 3u);
  const auto& [update, last] = *samples.rbegin();
  EXPECT_EQ(update, 25);
  ASSERT_EQ(last.size(), 2u);
  const Dataset data = load_run_dataset(sampled, (dir_ / "cache").string(), "");
  Transformer model = load_model(sampled, recorded(b, "checkpoint_last"));
  std::vector<Ids> prompts;
  for (size_t i = 0; i < 2; ++i) {
    const Ids& text = data.valid[i].tgt;
    prompts.emplace_back(text.begin(), text.begin() + prompt_length(text));
  }
  const auto greedy = greedy_continuations(*model, prompts, 64, torch::kCPU);
  const auto drawn =
      top_k_continuations(*model, prompts, 64, 4, sample_seed(sampled.train.seed, 25), torch::kCPU);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(last[i].source, data.vocab->decode(prompts[i]));
    EXPECT_EQ(last[i].hypothesis, data.vocab->decode(greedy[i]));
    EXPECT_EQ(last[i].sampled, data.vocab->decode(drawn[i]));
    EXPECT_EQ(last[i].top_k, 4);
  }
  EXPECT_TRUE(db::continues_prompts(store_->find_run(std::to_string(b))->config_json));
  EXPECT_NE(sample_seed(1, 10), sample_seed(1, 20));
  EXPECT_NE(sample_seed(1, 10), sample_seed(2, 10));
}

}  // namespace test_lm_sampling
}  // namespace fathom
