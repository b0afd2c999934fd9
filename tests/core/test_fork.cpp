// Forks (core/train/fork.h): a run continued from a kept checkpoint with nothing changed trains
// exactly as its parent did after that update -- loss for loss, also where the checkpoint fell
// between two log points -- carries the parent's rows up to it, and ends on the same model: it
// stops early where its parent did and averages the same kept checkpoints; a changed learning
// rate changes only what follows; an update without a checkpoint is refused naming the nearest.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "base/util/error.h"
#include "core/train/checkpoint.h"
#include "core/train/fork.h"
#include "tests/support/input_error.h"
#include "tests/support/trainer_test_fixture.h"

namespace fathom {
namespace test_fork {
using testing::expect_input_error;
using testing::series;
using testing::tiny_config;
using testing::TrainerTest;

class ForkTest : public TrainerTest {
 protected:
  // The parent: 30 updates, logged every 4 (so update 10's kept checkpoint falls inside a log
  // window), kept every 10.
  void SetUp() override {
    TrainerTest::SetUp();
    parent_config_ = tiny_config();
    parent_config_.train.max_updates = 30;
    parent_config_.train.log_every = 4;
    parent_config_.train.keep_checkpoint_every = 10;
    parent_ = new_run(parent_config_);
    ASSERT_EQ(train(parent_config_, parent_).status, "finished");
  }
  int64_t fork(const RunConfig& config, int64_t step) { return fork_of(parent_, config, step); }
  int64_t fork_of(int64_t parent, const RunConfig& config, int64_t step) {
    return create_fork(
        *store_, *store_->find_run(std::to_string(parent)), step, config, artifacts(parent),
        [&](int64_t id) { return artifacts(id); }, "test");
  }
  // The update the store records `run`'s artifact `kind` at (-1 when none).
  int64_t current_step(int64_t run, const std::string& kind) const {
    for (const auto& a : store_->artifacts(run))
      if (a.kind == kind) return a.step.value_or(-1);
    return -1;
  }
  RunConfig parent_config_;
  int64_t parent_ = 0;
};

TEST_F(ForkTest, AForkWithNothingChangedContinuesItsParentExactly) {
  RunConfig same = parent_config_;
  same.name = "fork";
  const int64_t child = fork(same, 10);
  EXPECT_EQ(store_->tags(child).at("forked_from"), std::to_string(parent_));
  EXPECT_EQ(store_->tags(child).at("forked_at"), "10");
  ASSERT_EQ(train(same, child, /*resume=*/true).status, "finished");
  const auto a = series(*store_, parent_, "train_loss"), b = series(*store_, child, "train_loss");
  EXPECT_EQ(a.size(), b.size());
  for (const auto& [step, loss] : a) {
    ASSERT_TRUE(b.count(step)) << step;
    EXPECT_EQ(b.at(step), loss) << "train_loss at update " << step;
  }
  EXPECT_EQ(series(*store_, child, "valid_loss"), series(*store_, parent_, "valid_loss"));
  // Kept checkpoints now hold what a fork needs; the best one (the model only) does not.
  EXPECT_TRUE(checkpoint_has_optimizer_state(recorded(parent_, "checkpoint_10")));
  EXPECT_FALSE(checkpoint_has_optimizer_state(recorded(parent_, "checkpoint_best")));
}

// A parent whose validation loss rises again (lr 0.05), validated and kept every 5 updates.
RunConfig rising_config(int patience, int average) {
  RunConfig c = tiny_config();
  c.name = "rising";
  c.train.lr = 0.05;
  c.train.max_updates = 30;
  c.train.valid_every = 5;
  c.train.keep_checkpoint_every = 5;
  c.train.patience = patience;
  c.eval.average_checkpoints = average;
  return c;
}

// Forked at its checkpoint_best with nothing changed, a run that train.patience stopped stops at
// the same update, for the same reason, on the same model: the fork's checkpoint knows the
// validation at its update (kept after it), and the fork holds the parent's checkpoint_best.
TEST_F(ForkTest, AForkAtItsParentsBestStopsWhereItsParentDidOnTheSameModel) {
  const RunConfig rising = rising_config(/*patience=*/1, /*average=*/0);
  const int64_t parent = new_run(rising);
  ASSERT_EQ(train(rising, parent).status, "finished");
  const auto tags = store_->tags(parent);
  ASSERT_TRUE(tags.count("early_stop")) << "the curve must turn up before update 30";
  const int64_t best = current_step(parent, "checkpoint_best");
  const int64_t child = fork_of(parent, rising, best);
  EXPECT_FALSE(store_->tags(child).count("early_stop")) << "the parent's stop is after the fork";
  EXPECT_FALSE(store_->tags(child).count("final_model"));
  EXPECT_EQ(store_->tags(child).at("data"), tags.at("data"));
  EXPECT_EQ(current_step(child, "checkpoint_best"), best);
  ASSERT_EQ(train(rising, child, /*resume=*/true).status, "finished");
  auto child_tags = store_->tags(child);
  EXPECT_EQ(child_tags["early_stop"], tags.at("early_stop"));
  EXPECT_EQ(child_tags["final_model"], tags.at("final_model"));
  EXPECT_EQ(series(*store_, child, "valid_loss"), series(*store_, parent, "valid_loss"));
  EXPECT_EQ(series(*store_, child, "test_loss"), series(*store_, parent, "test_loss"));
}

// With eval.average_checkpoints 3, a fork after the third-newest kept checkpoint averages the
// same three as its parent: it holds the parent's kept checkpoints up to its update, as hard
// links (no copy of a large model's bytes) where the file system allows.
TEST_F(ForkTest, AForkAveragesItsParentsKeptCheckpointsUpToItsUpdate) {
  const RunConfig rising = rising_config(/*patience=*/0, /*average=*/3);
  const int64_t parent = new_run(rising);
  ASSERT_EQ(train(rising, parent).status, "finished");
  ASSERT_EQ(store_->tags(parent).at("final_model"), "mean of 3 checkpoints, updates 20 25 30");
  const int64_t child = fork_of(parent, rising, 25);
  for (const int64_t update : {5, 10, 15, 20, 25}) {
    const std::string kind = "checkpoint_" + std::to_string(update);
    ASSERT_EQ(current_step(child, kind), update) << kind;
    EXPECT_TRUE(std::filesystem::equivalent(recorded(child, kind), recorded(parent, kind)));
  }
  EXPECT_EQ(current_step(child, "checkpoint_30"), -1);
  ASSERT_EQ(train(rising, child, /*resume=*/true).status, "finished");
  EXPECT_EQ(store_->tags(child).at("final_model"), "mean of 3 checkpoints, updates 20 25 30");
  EXPECT_EQ(series(*store_, child, "test_loss"), series(*store_, parent, "test_loss"));
}

// Where the file system refuses a hard link (the fork's directory on another one: /dev/shm
// here), a fork is given copies of what it can use -- the resume point, checkpoint_best and the
// kept checkpoints its final evaluation can still average (the newest 3 up to update 25: 15, 20,
// 25) -- not the earlier ones, each of a deep model's gigabytes; it says so in its tag
// fork.copied, and ends as its parent did, on the mean of the same three.
TEST_F(ForkTest, AcrossFileSystemsAForkCopiesOnlyWhatItCanUse) {
  const RunConfig rising = rising_config(/*patience=*/0, /*average=*/3);
  const int64_t parent = new_run(rising);
  ASSERT_EQ(train(rising, parent).status, "finished");
  const std::filesystem::path elsewhere =
      std::filesystem::path("/dev/shm") / ("fathom-fork-" + std::to_string(::getpid()));
  struct stat here {
  }, there{};
  std::error_code made;
  std::filesystem::create_directories(elsewhere, made);
  if (made || ::stat(artifacts(parent).c_str(), &here) != 0 ||
      ::stat(elsewhere.c_str(), &there) != 0 || here.st_dev == there.st_dev) {
    std::filesystem::remove_all(elsewhere, made);
    GTEST_SKIP() << "SKIPPED: no second file system at /dev/shm to refuse a hard link";
  }
  const int64_t child = create_fork(
      *store_, *store_->find_run(std::to_string(parent)), 25, rising, artifacts(parent),
      [&](int64_t id) { return (elsewhere / ("run-" + std::to_string(id))).string(); }, "test");
  for (const int64_t update : {15, 20, 25})
    EXPECT_EQ(current_step(child, "checkpoint_" + std::to_string(update)), update) << update;
  for (const int64_t update : {5, 10})
    EXPECT_EQ(current_step(child, "checkpoint_" + std::to_string(update)), -1) << update;
  EXPECT_FALSE(std::filesystem::equivalent(recorded(child, "checkpoint_25"),
                                           recorded(parent, "checkpoint_25")))
      << "a copy, not a link";
  EXPECT_NE(store_->tags(child).at("fork.copied").find("2 kept checkpoint(s) up to update 25"),
            std::string::npos)
      << store_->tags(child).at("fork.copied");
  ASSERT_EQ(train(rising, child, /*resume=*/true).status, "finished");
  EXPECT_EQ(store_->tags(child).at("final_model"), "mean of 3 checkpoints, updates 20 25 30");
  EXPECT_EQ(series(*store_, child, "test_loss"), series(*store_, parent, "test_loss"));
  std::filesystem::remove_all(elsewhere, made);
}

// A fork that follows another train.best_metric holds no checkpoint_best of its parent's (that
// was the best by another measure): its best and its patience start at its own validations.
TEST_F(ForkTest, AForkFollowingAnotherBestMetricStartsItsBestAfresh) {
  const RunConfig rising = rising_config(/*patience=*/0, /*average=*/0);
  const int64_t parent = new_run(rising);
  ASSERT_EQ(train(rising, parent).status, "finished");
  ASSERT_EQ(current_step(parent, "checkpoint_best"), 30);  // valid_loss fell to the end
  RunConfig by_bleu = rising;
  by_bleu.train.valid_bleu = 5;
  by_bleu.train.best_metric = "valid_bleu";
  const int64_t child = fork_of(parent, by_bleu, 25);
  EXPECT_EQ(current_step(child, "checkpoint_best"), -1);
  EXPECT_EQ(current_step(fork_of(parent, rising, 25), "checkpoint_best"), 25);  // the same metric
  ASSERT_EQ(train(by_bleu, child, /*resume=*/true).status, "finished");
  EXPECT_EQ(current_step(child, "checkpoint_best"), 30);  // its one validation after the fork
}

TEST_F(ForkTest, AChangedLearningRateChangesOnlyWhatFollows) {
  RunConfig slower = parent_config_;
  slower.train.lr = parent_config_.train.lr / 10;
  const int64_t child = fork(slower, 20);
  ASSERT_EQ(train(slower, child, /*resume=*/true).status, "finished");
  const auto a = series(*store_, parent_, "train_loss"), b = series(*store_, child, "train_loss");
  for (const auto& [step, loss] : a) {
    if (step <= 20)
      EXPECT_EQ(b.at(step), loss) << "the parent's row at update " << step;
    else
      EXPECT_NE(b.at(step), loss) << "update " << step << " trained with another rate";
  }
}

TEST_F(ForkTest, AnUpdateWithoutACheckpointIsRefusedNamingTheNearest) {
  const size_t runs_before = store_->list_runs().size();
  const InputError e = expect_input_error([&] { fork(parent_config_, 15); });
  EXPECT_EQ(e.field(), "--from");
  EXPECT_NE(std::string(e.what()).find("the nearest are updates 10 and 20"), std::string::npos)
      << e.what();
  EXPECT_EQ(store_->list_runs().size(), runs_before);  // nothing created
  // At or after the end: nothing to train.
  EXPECT_EQ(expect_input_error([&] { fork(parent_config_, 30); }).field(), "--from");
}

// A fork that cannot be completed -- here its third file cannot be written, as on a full disk
// -- leaves nothing: no run in the store, none of its files, and the parent's files whole.
TEST_F(ForkTest, AForkThatCannotBeCompletedLeavesNothingBehind) {
  const size_t runs_before = store_->list_runs().size();
  const int64_t next = parent_ + 1;  // the id the fork's run is given
  const std::filesystem::path dir = artifacts(next);
  // A non-empty directory where the fork's checkpoint_20 must go: neither link nor copy can
  // put a file there, after the resume point and checkpoint_10 were given.
  std::filesystem::create_directories(dir / "checkpoint_20.g0.pt" / "in_the_way");
  const std::vector<std::string> kinds = {"checkpoint_last", "checkpoint_10", "checkpoint_20"};
  std::vector<uintmax_t> links;  // the parent's own names of its files (a resume point may share)
  for (const auto& kind : kinds)
    links.push_back(std::filesystem::hard_link_count(recorded(parent_, kind)));
  try {
    fork(parent_config_, 20);
    FAIL() << "the fork cannot be made";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("fork of run " + std::to_string(parent_) +
                                         " at update 20 could not be made, and nothing of it"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(store_->list_runs().size(), runs_before);
  EXPECT_FALSE(store_->find_run(std::to_string(next)));
  std::vector<std::string> left;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    left.push_back(entry.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{"checkpoint_20.g0.pt"});  // only what was in the way
  for (size_t i = 0; i < kinds.size(); ++i)
    EXPECT_EQ(std::filesystem::hard_link_count(recorded(parent_, kinds[i])), links[i]) << kinds[i];
  // Once the way is clear, the same fork is made.
  std::filesystem::remove_all(dir / "checkpoint_20.g0.pt");
  EXPECT_EQ(fork(parent_config_, 20), next);
}

}  // namespace test_fork
}  // namespace fathom
