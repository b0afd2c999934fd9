// What a run keeps on disk (train.keep_checkpoints, train.keep_checkpoint_optimizer): only the
// newest N kept checkpoints stay, rows and files, also across a stop and resume; retention
// changes nothing about training (the same losses, the same kept models as a run keeping
// all); averaging finds its checkpoints; a model-only kept checkpoint holds the same weights
// in a fraction of the bytes, is what save_model_only makes of a full one, and cannot be
// forked from.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "base/config/config_io.h"
#include "core/train/checkpoint.h"
#include "core/train/fork.h"
#include "core/train/model_only_checkpoint.h"
#include "core/train/run_files.h"
#include "tests/support/input_error.h"
#include "tests/support/trainer_test_fixture.h"

namespace fathom {
namespace test_checkpoint_retention {
namespace fs = std::filesystem;
using testing::series;
using testing::tiny_config;
using testing::TrainerTest;

class RetentionTest : public TrainerTest {
 protected:
  // 25 updates, a checkpoint kept every 5.
  static RunConfig keeping(int newest) {
    RunConfig c = tiny_config();
    c.train.keep_checkpoint_every = 5;
    c.train.keep_checkpoints = newest;
    return c;
  }
  std::vector<int64_t> kept_updates(int64_t run) const {
    std::vector<int64_t> out;
    for (const auto& k : kept_checkpoints(store_->artifacts(run), artifacts(run)))
      out.push_back(k.update);
    return out;
  }
  // The kept checkpoints' files in the run's folder, whatever the store says.
  std::vector<std::string> kept_files_on_disk(int64_t run) const {
    static const std::regex kept(R"(checkpoint_[0-9]+\..*)");
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(artifacts(run)))
      if (std::regex_match(e.path().filename().string(), kept)) out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
  }
  std::vector<std::string> recorded_kept(int64_t run) const {
    std::vector<std::string> out;
    for (const auto& k : kept_checkpoints(store_->artifacts(run), artifacts(run)))
      out.push_back(k.path);
    std::sort(out.begin(), out.end());
    return out;
  }
  double max_difference(const RunConfig& config, const std::string& a, const std::string& b) {
    Transformer ma = load_model(config, a), mb = load_model(config, b);
    double worst = 0;
    auto pa = ma->parameters(), pb = mb->parameters();
    for (size_t i = 0; i < pa.size(); ++i)
      worst = std::max(worst, (pa[i] - pb[i]).abs().max().item<double>());
    return worst;
  }
};

TEST_F(RetentionTest, OnlyTheNewestKeptCheckpointsStayAndTrainingIsUnchanged) {
  const RunConfig all = keeping(0);
  const int64_t every = new_run(all);
  ASSERT_EQ(train(all, every).status, "finished");
  EXPECT_EQ(kept_updates(every), (std::vector<int64_t>{5, 10, 15, 20, 25}));

  RunConfig two = keeping(2);
  two.eval.average_checkpoints = 2;
  const int64_t newest = new_run(two);
  ASSERT_EQ(train(two, newest).status, "finished");
  EXPECT_EQ(kept_updates(newest), (std::vector<int64_t>{20, 25}));
  EXPECT_EQ(kept_files_on_disk(newest), recorded_kept(newest));
  EXPECT_EQ(kept_files_on_disk(newest).size(), 2u);
  EXPECT_NE(recorded(newest, "checkpoint_best"), "");  // other files are not kept checkpoints
  EXPECT_NE(recorded(newest, "checkpoint_last"), "");
  // Averaging found the two it needs.
  EXPECT_EQ(store_->tags(newest).at("final_model"), "mean of 2 checkpoints, updates 20 25");

  // Removing files changed nothing about training: the same losses and kept models.
  EXPECT_EQ(series(*store_, newest, "train_loss"), series(*store_, every, "train_loss"));
  EXPECT_EQ(
      max_difference(all, recorded(newest, "checkpoint_20"), recorded(every, "checkpoint_20")),
      0.0);
}

TEST_F(RetentionTest, AStoppedAndResumedRunStillKeepsOnlyTheNewest) {
  const RunConfig config = keeping(2);
  const int64_t run = new_run(config);
  const TrainOutcome stopped = train_stopped_when(config, run, [&](const db::Store& s) {
    for (const auto& a : s.artifacts(run))
      if (a.kind == "checkpoint_15") return true;
    return false;
  });
  ASSERT_EQ(stopped.status, "stopped");
  const std::vector<int64_t> before = kept_updates(run);
  ASSERT_FALSE(before.empty());
  EXPECT_LE(before.size(), 2u);
  EXPECT_EQ(before.back(), 15);  // stopped before update 20

  ASSERT_EQ(train(config, run, /*resume=*/true).status, "finished");
  EXPECT_EQ(kept_updates(run), (std::vector<int64_t>{20, 25}));
  // The first holder's files of retired checkpoints went with their rows.
  EXPECT_EQ(kept_files_on_disk(run), recorded_kept(run));
}

TEST_F(RetentionTest, AModelOnlyKeptCheckpointHoldsTheSameWeightsInAFractionOfTheBytes) {
  RunConfig full = keeping(0);
  full.model.d_model = 64;  // large enough that tensors, not the config text, fill the file
  full.model.d_ff = 128;
  RunConfig model_only = full;
  model_only.train.keep_checkpoint_optimizer = false;
  const int64_t with_state = new_run(full), without = new_run(model_only);
  ASSERT_EQ(train(full, with_state).status, "finished");
  ASSERT_EQ(train(model_only, without).status, "finished");

  const std::string a = recorded(with_state, "checkpoint_25"),
                    b = recorded(without, "checkpoint_25");
  EXPECT_TRUE(checkpoint_has_optimizer_state(a));
  EXPECT_FALSE(checkpoint_has_optimizer_state(b));
  EXPECT_EQ(max_difference(full, a, b), 0.0);
  // What the optimizer state adds is Adam's two float32 moments per parameter (and a step
  // count each), nothing else: the model alone is the rest of the file.
  int64_t parameter_bytes = 0;
  for (const auto& p : load_model(full, a)->parameters())
    parameter_bytes += p.numel() * static_cast<int64_t>(sizeof(float));
  const auto saved = static_cast<int64_t>(fs::file_size(a) - fs::file_size(b));
  EXPECT_GE(saved, 2 * parameter_bytes) << fs::file_size(b) << " of " << fs::file_size(a);
  EXPECT_LT(saved, 2 * parameter_bytes * 11 / 10) << fs::file_size(b) << " of " << fs::file_size(a);

  // `fathom prune --model-only` makes the same file afterwards from the full one.
  const std::string slim = (dir_ / "slim.pt").string();
  save_model_only(a, slim);
  EXPECT_FALSE(checkpoint_has_optimizer_state(slim));
  EXPECT_EQ(max_difference(full, a, slim), 0.0);
  TrainerState from_full, from_slim;
  Transformer m = load_model(full, a);
  load_checkpoint(a, *m, nullptr, &from_full);
  load_checkpoint(slim, *m, nullptr, &from_slim);
  EXPECT_EQ(from_slim.update, 25);
  EXPECT_EQ(from_slim.train_tokens, from_full.train_tokens);
  EXPECT_NEAR(static_cast<double>(fs::file_size(slim)), static_cast<double>(fs::file_size(b)),
              0.01 * static_cast<double>(fs::file_size(b)));

  // A fork needs the optimizer state and says which key leaves it out.
  const auto parent = store_->find_run(std::to_string(without));
  const InputError e = testing::expect_input_error([&] {
    create_fork(
        *store_, *parent, 15, model_only, artifacts(without),
        [&](int64_t id) { return artifacts(id); }, "test");
  });
  EXPECT_EQ(e.field(), "--from");
  EXPECT_NE(e.message().find("train.keep_checkpoint_optimizer"), std::string::npos) << e.message();
}

TEST(CheckpointRetention, SettingsThatCannotHoldAreRefusedAtTheirKey) {
  const auto refused = [](const std::string& body, const std::string& key,
                          const std::string& says) {
    const std::string yaml = "data: {task: synthetic}\n" + body;
    try {
      check_config(load_config_string(yaml, "keep.yaml", ""));
      FAIL() << "accepted: " << yaml;
    } catch (const std::exception& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("keep.yaml"), std::string::npos) << what;
      EXPECT_NE(what.find(key), std::string::npos) << what;
      EXPECT_NE(what.find(says), std::string::npos) << what;
    }
  };
  refused("train: {keep_checkpoints: 3}\n", "train.keep_checkpoints", "keeps none");
  refused(
      "train: {max_updates: 100, keep_checkpoint_every: 10, keep_checkpoints: 2}\n"
      "eval: {average_checkpoints: 3}\n",
      "eval.average_checkpoints", "train.keep_checkpoints 2");
  check_config(load_config_string(
      "data: {task: synthetic}\ntrain: {max_updates: 100, keep_checkpoint_every: 10, "
      "keep_checkpoints: 3}\neval: {average_checkpoints: 3}\n",
      "keep.yaml", ""));
}

// At an update that keeps a checkpoint with the optimizer state, the resume point is the same
// file under a second name (no second write of the model and Adam's moments), and a run stopped
// past it and resumed from it trains on exactly as an uninterrupted one.
TEST_F(RetentionTest, AResumePointAtAKeptUpdateIsTheKeptFileAndResumesExactly) {
  RunConfig config = keeping(0);
  config.train.valid_every = 5;  // a resume point at every kept update
  const int64_t whole = new_run(config);
  ASSERT_EQ(train(config, whole).status, "finished");
  EXPECT_TRUE(fs::equivalent(recorded(whole, "checkpoint_last"), recorded(whole, "checkpoint_25")));
  EXPECT_TRUE(
      fs::equivalent(recorded(whole, "checkpoint_previous"), recorded(whole, "checkpoint_20")));

  const int64_t run = new_run(config);
  const TrainOutcome stopped = train_stopped_when(config, run, [&](const db::Store& s) {
    for (const auto& a : s.artifacts(run))
      if (a.kind == "checkpoint_last" && a.step.value_or(0) >= 10) return true;
    return false;
  });
  ASSERT_NE(stopped.status, "finished");
  ASSERT_EQ(train(config, run, /*resume=*/true).status, "finished");
  for (const char* metric : {"train_loss", "valid_loss", "test_loss"})
    EXPECT_EQ(series(*store_, run, metric), series(*store_, whole, metric)) << metric;
}

}  // namespace test_checkpoint_retention
}  // namespace fathom
