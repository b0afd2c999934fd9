// Checkpoint averaging (eval.average_checkpoints, core/train/checkpoint_average.h): the final
// evaluation measures the element-wise mean of the last N kept checkpoints' weights, computed
// here independently from the kept files; without it, the best checkpoint, as the tag says.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "base/config/config_io.h"
#include "core/data/dataset.h"
#include "core/train/evaluate.h"
#include "db/artifact_files.h"
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

// 25 updates validated and kept every 5, averaging the best 2 by valid_loss; the learning rate
// is high enough for the curve to rise again, so the best are not simply the last.
RunConfig averaging_the_best_two() {
  RunConfig config = tiny_config();
  config.train.lr = 0.05;
  config.train.valid_every = 5;
  config.train.keep_checkpoint_every = 5;
  config.eval.average_checkpoints = 2;
  config.eval.average_by = "best";
  return config;
}

// eval.average_by best: the N kept checkpoints with the lowest valid_loss at their updates,
// chosen here from the stored curve, are the ones averaged. The learning rate is high enough
// for the curve to rise again, so the best are not simply the last.
TEST_F(TrainerTest, AveragingTheBestTakesTheKeptCheckpointsOfTheLowestValidLoss) {
  const RunConfig config = averaging_the_best_two();
  const int64_t run = new_run(config);
  const TrainOutcome outcome = train(config, run);
  ASSERT_EQ(outcome.status, "finished");

  // By hand: the kept updates ordered by their valid_loss (the later first among equals).
  const auto loss = testing::series(*store_, run, db::metric::kValidLoss);
  std::vector<std::pair<double, int64_t>> ranked;
  for (int64_t u : {5, 10, 15, 20, 25}) {
    ASSERT_TRUE(loss.count(u)) << "no validation at kept update " << u;
    ranked.push_back({loss.at(u), -u});
  }
  std::sort(ranked.begin(), ranked.end());
  std::vector<int64_t> best = {-ranked[0].second, -ranked[1].second};
  std::sort(best.begin(), best.end());
  EXPECT_NE(best, (std::vector<int64_t>{20, 25})) << "the curve fell all the way: best and last "
                                                     "are the same checkpoints here";
  EXPECT_EQ(store_->tags(run).at("final_model"),
            "mean of 2 best checkpoints by valid_loss, updates " + std::to_string(best[0]) + " " +
                std::to_string(best[1]));

  std::vector<Transformer> chosen;
  for (int64_t u : best)
    chosen.push_back(load_model(config, recorded(run, "checkpoint_" + std::to_string(u))));
  const Dataset data = load_dataset(config.data, (dir_ / "cache").string(), "");
  Transformer expected = mean_of(config, chosen, data.vocab->size());
  Transformer averaged = load_model(config, recorded(run, "checkpoint_average"));
  EXPECT_LT(max_difference(averaged, expected), 1e-7);
  std::printf("valid_loss at 5..25:");
  for (int64_t u : {5, 10, 15, 20, 25}) std::printf(" %.4f", loss.at(u));
  std::printf("; averaged %lld %lld\n", static_cast<long long>(best[0]),
              static_cast<long long>(best[1]));
}

// train.keep_checkpoints 2 with eval.average_by best keeps the two best, not the newest: the run
// -- stopped once it kept update 15 and resumed -- ends with only the two checkpoints a run that
// kept every one averages, their files alone on disk, and the same final model.
TEST_F(TrainerTest, KeepingTheBestTwoEndsOnTheModelOfKeepingEveryOne) {
  const RunConfig every = averaging_the_best_two();
  const int64_t all = new_run(every);
  ASSERT_EQ(train(every, all).status, "finished");
  RunConfig two = every;
  two.train.keep_checkpoints = 2;
  const int64_t run = new_run(two);
  const TrainOutcome stopped = train_stopped_when(two, run, [&](const db::Store& s) {
    for (const auto& a : s.artifacts(run))
      if (a.kind == "checkpoint_15") return true;
    return false;
  });
  ASSERT_NE(stopped.status, "finished") << "stopped before its end";
  ASSERT_EQ(train(two, run, /*resume=*/true).status, "finished");

  const std::string final_model = store_->tags(all).at("final_model");
  EXPECT_EQ(store_->tags(run).at("final_model"), final_model);
  std::string kept;  // "checkpoint_15 checkpoint_25"
  for (const auto& k : db::kept_checkpoints(store_->artifacts(run), artifacts(run)))
    kept += (kept.empty() ? "" : " ") + std::to_string(k.update);
  EXPECT_EQ("mean of 2 best checkpoints by valid_loss, updates " + kept, final_model);
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(artifacts(run)))
    files +=
        std::regex_match(entry.path().filename().string(), std::regex(R"(checkpoint_[0-9]+\..*)"));
  EXPECT_EQ(files, 2u) << "the kept checkpoints' files, and no retired one's";
  EXPECT_EQ(testing::series(*store_, run, db::metric::kTestLoss),
            testing::series(*store_, all, db::metric::kTestLoss));
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

// check_config refuses `yaml` (as file `file`), naming the file, `key` and `says`.
void expect_refused(const std::string& yaml, const std::string& file, const std::string& key,
                    const std::string& says) {
  try {
    check_config(load_config_string(yaml, file, ""));
    FAIL() << "accepted: " << yaml;
  } catch (const std::exception& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(file), std::string::npos) << what;
    EXPECT_NE(what.find(key), std::string::npos) << what;
    EXPECT_NE(what.find(says), std::string::npos) << what;
  }
}

TEST(CheckpointAverage, ARunThatKeepsTooFewCheckpointsIsRefusedAtTheKey) {
  const auto refused = [](const std::string& train, const std::string& says) {
    expect_refused(
        "data: {task: synthetic}\ntrain: " + train + "\neval: {average_checkpoints: 3}\n",
        "avg.yaml", "eval.average_checkpoints", says);
  };
  refused("{max_updates: 100}", "keeps none (0)");
  refused("{max_updates: 100, keep_checkpoint_every: 40}",
          "train.max_updates 100 / train.keep_checkpoint_every 40 keeps 2");
  EXPECT_NO_THROW(check_config(load_config_string(
      "data: {task: synthetic}\ntrain: {max_updates: 120, keep_checkpoint_every: 40}\n"
      "eval: {average_checkpoints: 3}\n",
      "ok.yaml", "")));
}

// eval.average_by best ranks the kept checkpoints by their validations: refused, naming the
// key, where some would have none, where train.keep_checkpoints keeps fewer than it averages, or
// where nothing is averaged.
TEST(CheckpointAverage, AveragingTheBestIsRefusedWhereItCannotRankEveryKeptCheckpoint) {
  const auto refused = [](const std::string& train, const std::string& eval,
                          const std::string& says) {
    expect_refused("data: {task: synthetic}\ntrain: " + train + "\neval: " + eval + "\n",
                   "best.yaml", "eval.average_by", says);
  };
  const std::string best3 = "{average_checkpoints: 3, average_by: best}";
  refused("{max_updates: 120, keep_checkpoint_every: 30, valid_every: 20}", best3,
          "train.keep_checkpoint_every 30 is not a multiple of train.valid_every 20");
  expect_refused(
      "data: {task: synthetic}\ntrain: {max_updates: 120, keep_checkpoint_every: 40, "
      "valid_every: 20, keep_checkpoints: 2}\neval: " +
          best3 + "\n",
      "best.yaml", "eval.average_checkpoints", "leaves only the best 2");
  refused("{max_updates: 120}", "{average_by: best}", "which is 0");
  refused("{max_updates: 120, keep_checkpoint_every: 40, valid_every: 20}",
          "{average_checkpoints: 3, average_by: newest}", "newest");
  EXPECT_NO_THROW(check_config(load_config_string(
      "data: {task: synthetic}\ntrain: {max_updates: 120, keep_checkpoint_every: 40, "
      "valid_every: 20, keep_checkpoints: 3}\neval: " +
          best3 + "\n",
      "ok.yaml", "")));
}

}  // namespace test_checkpoint_average
}  // namespace fathom
