// train.cuda_graphs (core/train/graphed_updates.h): a run whose batches are replayed as CUDA
// graphs records the losses the eager run records and replays every batch but each shape's
// first; without a GPU it is refused before any work. The CUDA test skips unless
// FATHOM_TEST_DEVICE=cuda (scripts/gpu/lease.sh).
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "core/data/batch.h"
#include "core/data/dataset.h"
#include "tests/support/trainer_test_fixture.h"

namespace fathom::testing {
namespace test_trainer_cuda_graphs {

// Two epochs and more (every batch shape comes back), dropout on: the graphed run's losses at
// every update and its validation losses are the eager run's, within float reassociation, and
// most of its batches were replays.
TEST_F(TrainerTest, CudaGraphsTrainAsTheEagerRunOnCuda) {
  RunConfig eager = tiny_config();
  // The batches of an epoch: the graphed run replays every batch after the first epoch's.
  const Dataset data = load_dataset(eager.data, (dir_ / "cache").string(), "");
  const int64_t plan = static_cast<int64_t>(plan_batches(data.train, eager.data.max_tokens).size());
  ASSERT_LE(plan, 30);
  if (!test_device().is_cuda()) GTEST_SKIP() << "needs FATHOM_TEST_DEVICE=cuda";
  eager.train.max_updates = 60;
  eager.train.log_every = 1;
  eager.train.valid_every = 20;
  eager.eval.max_sentences = 1;
  RunConfig graphed = eager;
  graphed.train.cuda_graphs = true;
  const int64_t a = new_run(eager), b = new_run(graphed);
  const TrainOutcome eager_outcome = train(eager, a);
  const TrainOutcome graphed_outcome = train(graphed, b);
  EXPECT_EQ(eager_outcome.graphed_batches, 0);
  EXPECT_GE(graphed_outcome.graphed_batches, 60 - plan);
  EXPECT_LT(graphed_outcome.graphed_batches, 60);  // each shape's first batch ran eagerly
  for (const char* metric : {"train_loss", "valid_loss"}) {
    const auto want = series(*store_, a, metric), got = series(*store_, b, metric);
    ASSERT_EQ(got.size(), want.size()) << metric;
    ASSERT_FALSE(want.empty()) << metric;
    for (const auto& [step, value] : want)
      EXPECT_NEAR(got.at(step), value, 2e-4 * std::abs(value)) << metric << " at " << step;
  }
}

// One batch an update: a shape's first batch runs eagerly and is captured at that update's end,
// so every later batch replays -- exactly the plan's batches met less its shapes, padded
// (data.pad_to_multiple, fewer shapes) or not, each shape counted as the plan collates it.
TEST_F(TrainerTest, CudaGraphsReplayAllButEachShapesFirstBatchOnCuda) {
  RunConfig plain = tiny_config();
  const Dataset data = load_dataset(plain.data, (dir_ / "cache").string(), "");
  if (!test_device().is_cuda()) GTEST_SKIP() << "needs FATHOM_TEST_DEVICE=cuda";
  plain.train.cuda_graphs = true;
  plain.train.max_updates = 40;
  plain.train.valid_every = 40;
  plain.eval.max_sentences = 1;
  RunConfig padded = plain;
  padded.data.pad_to_multiple = 8;
  for (const RunConfig& config : {plain, padded}) {
    const BatchPlan plan =
        plan_batches(data.train, config.data.max_tokens, config.data.pad_to_multiple);
    ASSERT_LT(static_cast<int64_t>(plan.size()), 40);  // every shape met in the first epoch
    const auto shapes = static_cast<int64_t>(batch_shapes(data.train, plan).distinct);
    const TrainOutcome outcome = train(config, new_run(config));
    EXPECT_EQ(outcome.graphed_batches, 40 - shapes)
        << "data.pad_to_multiple " << config.data.pad_to_multiple;
  }
}

TEST_F(TrainerTest, CudaGraphsWithoutAGpuAreRefusedBeforeAnyWork) {
  if (torch::cuda::is_available()) GTEST_SKIP() << "this machine has a GPU";
  RunConfig config = tiny_config();
  config.device = "auto";
  config.train.cuda_graphs = true;
  const int64_t run = new_run(config);
  try {
    train(config, run);
    FAIL() << "trained with train.cuda_graphs on the CPU";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("train.cuda_graphs: needs a CUDA device"),
              std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(store_->metric_series(run, "train_loss").empty());
}

}  // namespace test_trainer_cuda_graphs
}  // namespace fathom::testing
