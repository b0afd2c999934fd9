// train.noise_scale in the trainer (core/train/noise_scale_monitor.h): the rows of each log
// window against their own definitions, a run's training untouched by the reading, and the
// window carried through a stop and resume to the uninterrupted run's rows bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "base/config/config.h"
#include "base/metrics/noise_scale_window.h"
#include "core/train/checkpoint.h"
#include "core/train/trainer.h"
#include "db/metric_names.h"
#include "db/store.h"
#include "tests/support/trainer_test_fixture.h"

namespace fathom {
namespace test_trainer_noise_scale {
using testing::series;
using testing::steps;
using testing::tiny_config;
using testing::TrainerTest;
namespace m = db::metric;

// Updates of at least 600 target tokens from batches of at most 256: three or more batches.
RunConfig noise_config() {
  RunConfig config = tiny_config();
  config.train.update_tokens = 600;
  config.train.max_updates = 20;
  config.train.log_every = 5;
  config.train.valid_every = 20;
  config.train.noise_scale = true;
  return config;
}

// Every log window: its 5 updates counted; B_simple the ratio of the means; the interval
// around it; the standard errors positive. The same run without the reading trains the same
// losses and gradient norms bit for bit, and logs no noise.* row.
TEST_F(TrainerTest, NoiseScaleRowsFollowTheirDefinitionsAndChangeNoTraining) {
  const RunConfig config = noise_config();
  const int64_t with = new_run(config);
  ASSERT_EQ(train(config, with).status, "finished");
  RunConfig plain = config;
  plain.train.noise_scale = false;
  const int64_t without = new_run(plain);
  ASSERT_EQ(train(plain, without).status, "finished");

  EXPECT_EQ(steps(*store_, with, m::kNoiseUpdates), (std::vector<int64_t>{5, 10, 15, 20}));
  const auto updates = series(*store_, with, m::kNoiseUpdates);
  const auto trace = series(*store_, with, m::kNoiseTrace);
  const auto grad_sq = series(*store_, with, m::kNoiseGradSq);
  const auto trace_se = series(*store_, with, m::kNoiseTraceSe);
  const auto grad_sq_se = series(*store_, with, m::kNoiseGradSqSe);
  const auto b = series(*store_, with, m::kNoiseBSimple);
  const auto low = series(*store_, with, m::kNoiseBSimpleLow);
  const auto high = series(*store_, with, m::kNoiseBSimpleHigh);
  int finite = 0;
  for (int64_t step : {5, 10, 15, 20}) {
    SCOPED_TRACE("update " + std::to_string(step));
    EXPECT_EQ(updates.at(step), 5.0);
    EXPECT_GT(trace_se.at(step), 0.0);
    EXPECT_GT(grad_sq_se.at(step), 0.0);
    if (grad_sq.at(step) <= 0) {
      EXPECT_EQ(b.count(step), 0u);  // infinite: no row
      continue;
    }
    ++finite;
    EXPECT_DOUBLE_EQ(b.at(step), std::max(trace.at(step), 0.0) / grad_sq.at(step));
    ASSERT_EQ(low.count(step), 1u);
    EXPECT_LE(low.at(step), b.at(step));
    if (high.count(step)) {
      EXPECT_GE(high.at(step), b.at(step));
    }
  }
  EXPECT_GT(finite, 0) << "no window measured a mean gradient";

  for (const char* name : {m::kTrainLoss.c_str(), m::kGradNorm.c_str()})
    EXPECT_EQ(series(*store_, with, name), series(*store_, without, name)) << name;
  for (const std::string& name : store_->metric_names(without))
    EXPECT_NE(name.rfind(m::kNoisePrefix, 0), 0u) << name;
}

// A stop between log points: the checkpoint keeps the noise window's sums, and the resumed
// run logs the uninterrupted run's noise.* rows exactly.
TEST_F(TrainerTest, NoiseScaleWindowTravelsThroughAStopAndResume) {
  RunConfig config = noise_config();
  config.train.max_updates = 40;
  config.train.log_every = 7;  // stops land between log points
  const int64_t a = new_run(config);
  ASSERT_EQ(train(config, a).status, "finished");
  const int64_t b = new_run(config);
  const TrainOutcome stopped = train_stopped_when(
      config, b, [&](const db::Store& s) { return s.last_metric_step(b, "train_loss") >= 7; });
  ASSERT_EQ(stopped.status, "stopped");
  ASSERT_LT(stopped.updates, 40);
  TrainerState state;
  Transformer model = load_model(config, recorded(b, "checkpoint_last"));
  load_checkpoint(recorded(b, "checkpoint_last"), *model, nullptr, &state);
  EXPECT_EQ(state.window.noise.updates, stopped.updates % 7);
  ASSERT_EQ(train(config, b, /*resume=*/true).status, "finished");
  int compared = 0;
  for (const std::string& name : store_->metric_names(a)) {
    if (name.rfind(m::kNoisePrefix, 0) != 0) continue;
    EXPECT_EQ(series(*store_, b, name), series(*store_, a, name)) << name;
    ++compared;
  }
  EXPECT_GE(compared, 5);
}

}  // namespace test_trainer_noise_scale
}  // namespace fathom
