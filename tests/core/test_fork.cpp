// Forks (core/train/fork.h): a run continued from a kept checkpoint with nothing changed trains
// exactly as its parent did after that update -- loss for loss, also where the checkpoint fell
// between two log points -- and carries the parent's rows up to it; a changed learning rate
// changes only what follows; an update without a checkpoint is refused naming the nearest.
#include <gtest/gtest.h>

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
  int64_t fork(const RunConfig& config, int64_t step) {
    const auto parent = store_->find_run(std::to_string(parent_));
    return create_fork(
        *store_, *parent, step, config, artifacts(parent_),
        [&](int64_t id) { return artifacts(id); }, "test");
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

}  // namespace test_fork
}  // namespace fathom
