// Checkpoint averaging (eval.average_checkpoints, core/train/checkpoint_average.h): the final
// evaluation measures the element-wise mean of the last N kept checkpoints' weights, computed
// here independently from the kept files; without it, the best checkpoint, as the tag says.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/config/config_io.h"
#include "core/data/dataset.h"
#include "core/train/evaluate.h"
#include "db/metric_names.h"
#include "tests/support/test_device.h"
#include "tests/support/trainer_test_fixture.h"

namespace fathom {
namespace test_checkpoint_average {
using testing::tiny_config;
using testing::TrainerTest;

// A model whose parameters are the mean of `models`', summed in float64, built without
// average_checkpoints() (the tiny model's buffers, its position table, are the same in all).
Transformer mean_of(const RunConfig& config, std::vector<Transformer>& models, int64_t vocab) {
  Transformer mean = build_model(config, vocab, /*seed=*/1);
  torch::NoGradGuard no_grad;
  auto out = mean->parameters();
  for (size_t i = 0; i < out.size(); ++i) {
    torch::Tensor sum = torch::zeros_like(out[i], torch::kFloat64);
    for (auto& m : models) sum += m->parameters()[i].to(torch::kFloat64);
    out[i].copy_(sum / static_cast<double>(models.size()));
  }
  return mean;
}

double max_difference(Transformer& a, Transformer& b) {
  double worst = 0;
  auto pa = a->parameters(), pb = b->parameters();
  for (size_t i = 0; i < pa.size(); ++i)
    worst = std::max(worst, (pa[i] - pb[i]).abs().max().item<double>());
  return worst;
}

TEST_F(TrainerTest, TheFinalModelIsTheMeanOfTheLastKeptCheckpoints) {
  RunConfig config = tiny_config();  // 25 updates
  config.train.keep_checkpoint_every = 5;
  config.eval.average_checkpoints = 3;
  const int64_t run = new_run(config);
  const TrainOutcome outcome = train(config, run);
  ASSERT_EQ(outcome.status, "finished");
  EXPECT_EQ(store_->tags(run).at("final_model"), "mean of 3 checkpoints, updates 15 20 25");

  std::vector<Transformer> kept;
  for (const char* update : {"15", "20", "25"})
    kept.push_back(load_model(config, recorded(run, std::string("checkpoint_") + update)));
  ASSERT_GT(max_difference(kept.front(), kept.back()), 1e-4);  // they did train apart
  const Dataset data = load_dataset(config.data, (dir_ / "cache").string(), "");
  Transformer expected = mean_of(config, kept, data.vocab->size());
  Transformer averaged = load_model(config, recorded(run, "checkpoint_average"));
  EXPECT_LT(max_difference(averaged, expected), 1e-7);
  EXPECT_GT(max_difference(averaged, kept.back()), 1e-5);  // not simply the last one

  // The final metrics are that model's.
  expected->to(test_device());
  const LossReport test = evaluate_loss(*expected, data.test, config.data.max_tokens, test_device(),
                                        config.train.label_smoothing);
  EXPECT_NEAR(outcome.final_metrics.at(db::metric::kTestLoss), test.loss, 1e-5);
  const LossReport valid = evaluate_loss(*expected, data.valid, config.data.max_tokens,
                                         test_device(), config.train.label_smoothing);
  EXPECT_NEAR(outcome.final_metrics.at(db::metric::kValidLoss), valid.loss, 1e-5);
}

TEST_F(TrainerTest, WithoutAveragingTheFinalModelIsTheBestCheckpoint) {
  RunConfig config = tiny_config();  // validated at 10, 20 and 25
  const int64_t run = new_run(config);
  ASSERT_EQ(train(config, run).status, "finished");
  int64_t best = -1;
  for (const auto& a : store_->artifacts(run))
    if (a.kind == "checkpoint_best") best = a.step.value_or(-1);
  ASSERT_GT(best, 0);
  EXPECT_EQ(store_->tags(run).at("final_model"), "checkpoint_best, update " + std::to_string(best));
  EXPECT_EQ(recorded(run, "checkpoint_average"), "");
}

TEST(CheckpointAverage, ARunThatKeepsTooFewCheckpointsIsRefusedAtTheKey) {
  const auto refused = [](const std::string& train, const std::string& says) {
    const std::string yaml =
        "data: {task: synthetic}\ntrain: " + train + "\neval: {average_checkpoints: 3}\n";
    try {
      check_config(load_config_string(yaml, "avg.yaml", ""));
      FAIL() << "accepted: " << yaml;
    } catch (const std::exception& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("avg.yaml"), std::string::npos) << what;
      EXPECT_NE(what.find("eval.average_checkpoints"), std::string::npos) << what;
      EXPECT_NE(what.find(says), std::string::npos) << what;
    }
  };
  refused("{max_updates: 100}", "keeps none (0)");
  refused("{max_updates: 100, keep_checkpoint_every: 40}",
          "train.max_updates 100 / train.keep_checkpoint_every 40 keeps 2");
  EXPECT_NO_THROW(check_config(load_config_string(
      "data: {task: synthetic}\ntrain: {max_updates: 120, keep_checkpoint_every: 40}\n"
      "eval: {average_checkpoints: 3}\n",
      "ok.yaml", "")));
}

}  // namespace test_checkpoint_average
}  // namespace fathom
