// The sharpness while training (core/train/sharpness.h, train.sharpness_every; docs/
// curvature.md): its curves at the points asked for, the stored stability ratio recomputed from
// the stored sharpness and learning-rate schedule, training loss for loss the same as without
// it, Muon with no preconditioned value, and settings that cannot work refused.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "base/config/config.h"
#include "base/config/config_io.h"
#include "base/config/lr_schedule.h"
#include "db/metric_names.h"
#include "tests/support/config_test_helpers.h"
#include "tests/support/input_error.h"
#include "tests/support/trainer_test_fixture.h"

namespace fathom {
namespace test_sharpness_training {
using testing::expect_input_error;
using testing::tiny_config;
using testing::TrainerTest;
namespace m = db::metric;

TEST_F(TrainerTest, SharpnessIsRecordedAtItsPointsAndLeavesTrainingUnchanged) {
  RunConfig plain = tiny_config();
  plain.train.log_every = 5;
  RunConfig measured = plain;
  measured.train.sharpness_every = 5;
  measured.train.sharpness_sentences = 8;
  const int64_t a = new_run(plain), b = new_run(measured);
  ASSERT_EQ(train(plain, a).status, "finished");
  ASSERT_EQ(train(measured, b).status, "finished");
  for (const std::string name : {"train_loss", "valid_loss"}) {
    const auto x = testing::series(*store_, a, name), y = testing::series(*store_, b, name);
    ASSERT_EQ(x.size(), y.size()) << name;
    for (const auto& [step, value] : x) EXPECT_EQ(y.at(step), value) << name << " at " << step;
  }
  EXPECT_TRUE(testing::steps(*store_, a, m::kSharpness).empty());
  const std::vector<int64_t> points{5, 10, 15, 20, 25};
  for (const std::string& name : {m::kSharpness, m::kPreconditionedSharpness,
                                  m::kEdgeOfStabilityRatio, m::kSharpnessProducts})
    EXPECT_EQ(testing::steps(*store_, b, name), points) << name;
  const auto sharpness = testing::series(*store_, b, m::kSharpness);
  const auto preconditioned = testing::series(*store_, b, m::kPreconditionedSharpness);
  const auto ratio = testing::series(*store_, b, m::kEdgeOfStabilityRatio);
  const auto products = testing::series(*store_, b, m::kSharpnessProducts);
  for (int64_t u : points) {
    EXPECT_TRUE(std::isfinite(sharpness.at(u))) << u;
    // Adam divides by sqrt(v) ~ |g| << 1: the preconditioned Hessian is the larger.
    EXPECT_GT(preconditioned.at(u), sharpness.at(u)) << u;
    // eta_{u+1} * lambda(P^-1 H) / 38 (beta1 = 0.9), recomputed from what is stored.
    EXPECT_NEAR(ratio.at(u), learning_rate(measured.train, u + 1) * preconditioned.at(u) / 38.0,
                1e-9 * std::abs(ratio.at(u)))
        << u;
    EXPECT_GE(products.at(u), 2);
    EXPECT_LE(products.at(u), 2 * measured.train.sharpness_iterations);
  }
}

// Each point starts from a direction seeded by (seed, update) and the model resumes exactly:
// a run stopped and resumed records the uninterrupted run's values at every point.
TEST_F(TrainerTest, AResumedRunRecordsTheSameSharpness) {
  RunConfig config = tiny_config();
  config.train.log_every = 1;
  config.train.sharpness_every = 4;
  config.train.sharpness_sentences = 4;
  config.eval.max_sentences = 1;
  const int64_t a = new_run(config), b = new_run(config);
  ASSERT_EQ(train(config, a).status, "finished");
  const TrainOutcome stopped = train_stopped_when(
      config, b, [&](const db::Store& s) { return s.last_metric_step(b, m::kSharpness) >= 8; });
  ASSERT_EQ(stopped.status, "stopped");
  ASSERT_LT(stopped.updates, 24);
  ASSERT_EQ(train(config, b, /*resume=*/true).status, "finished");
  for (const std::string& name : {m::kSharpness, m::kPreconditionedSharpness}) {
    const auto x = testing::series(*store_, a, name), y = testing::series(*store_, b, name);
    EXPECT_EQ(testing::steps(*store_, b, name), (std::vector<int64_t>{4, 8, 12, 16, 20, 24}));
    for (const auto& [step, value] : x) EXPECT_EQ(y.at(step), value) << name << " at " << step;
  }
}

TEST_F(TrainerTest, MuonRunsHaveASharpnessButNoPreconditionedOne) {
  RunConfig config = tiny_config();
  config.train.optimizer = "muon";
  config.train.max_updates = 4;
  config.train.sharpness_every = 2;
  config.train.sharpness_sentences = 4;
  const int64_t run = new_run(config);
  ASSERT_EQ(train(config, run).status, "finished");
  EXPECT_EQ(testing::steps(*store_, run, m::kSharpness), (std::vector<int64_t>{2, 4}));
  EXPECT_TRUE(testing::steps(*store_, run, m::kPreconditionedSharpness).empty());
  EXPECT_TRUE(testing::steps(*store_, run, m::kEdgeOfStabilityRatio).empty());
}

TEST_F(TrainerTest, SharpnessSettingsThatCannotWorkAreRefused) {
  RunConfig config = tiny_config();
  config.train.sharpness_every = 5;
  config.train.sharpness_sentences = config.data.synthetic.train_size + 1;
  const int64_t run = new_run(config);
  const InputError e = expect_input_error([&] { train(config, run); });
  EXPECT_EQ(e.field(), "train.sharpness_sentences");
  EXPECT_NE(std::string(e.what()).find("the training set has 300"), std::string::npos) << e.what();
  EXPECT_TRUE(testing::steps(*store_, run, m::kSharpness).empty());

  // Read from a file: bad values named with the file, line and key.
  auto refused = [](const std::string& key, const std::string& value) {
    return expect_input_error([&] {
      check_config(testing::synthetic_config({"train:", "  lr: 0.001", "  " + key + ": " + value}));
    });
  };
  for (const std::string key : {"sharpness_every", "sharpness_sentences", "sharpness_iterations"})
    for (const std::string bad : {"-1", "2.5", "often"}) {
      const InputError parse = refused(key, bad);
      EXPECT_EQ(parse.field(), "train." + key) << bad;
      EXPECT_EQ(parse.line(), 5) << bad;
      EXPECT_EQ(parse.file(), "check.yaml") << bad;
    }
  for (const std::string key : {"sharpness_sentences", "sharpness_iterations"})
    EXPECT_EQ(refused(key, "0").field(), "train." + key);
}

}  // namespace test_sharpness_training
}  // namespace fathom
