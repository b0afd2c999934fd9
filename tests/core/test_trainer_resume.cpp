// The trainer interrupted and resumed (core/train/trainer.h): bit-exact resume, a truncated
// last checkpoint, a full disk, an unwritable output file, a stop request, a resume after the
// last update. Each test trains for a few seconds on one CPU thread.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "base/config/config.h"
#include "base/config/config_io.h"
#include "base/metrics/bleu.h"
#include "base/util/error.h"
#include "core/data/dataset.h"
#include "core/model/transformer.h"
#include "core/train/checkpoint.h"
#include "core/train/trainer.h"
#include "db/metric_names.h"
#include "db/store.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_device.h"
#include "tests/support/trainer_test_fixture.h"

namespace fathom {
namespace test_trainer_resume {
namespace fs = std::filesystem;
using testing::range;
using testing::series;
using testing::steps;
using testing::tiny_config;
using testing::TrainerTest;

// Stopping after 20 updates and resuming to 40 must give the same trajectory as 40 updates
// straight: same losses at every step (dropout 0.1, so the dropout masks must be the same
// too), no duplicate or missing metric points, and bit-identical final parameters. A resume
// that lost the optimizer moments, the data position, the dropout seed or the divergence
// reference would diverge from the straight run.
TEST_F(TrainerTest, ResumeContinuesTheIdenticalTrajectory) {
  RunConfig config = tiny_config();
  config.train.max_updates = 40;
  config.train.log_every = 1;
  config.train.valid_every = 10;
  config.model.dropout = 0.1;

  const int64_t a = new_run(config);
  ASSERT_EQ(train(config, a).status, "finished");

  RunConfig first_half = config;
  first_half.train.max_updates = 20;
  const int64_t b = new_run(first_half);
  ASSERT_EQ(train(first_half, b).status, "finished");
  ASSERT_EQ(steps(*store_, b, "train_loss"), range(1, 20));
  const TrainOutcome resumed = train(config, b, /*resume=*/true);
  EXPECT_EQ(resumed.status, "finished");
  EXPECT_EQ(resumed.updates, 40);
  EXPECT_EQ(store_->find_run(std::to_string(b))->status, "finished");
  EXPECT_EQ(store_->find_run(std::to_string(b))->updates, 40);

  // Every step exactly once.
  EXPECT_EQ(steps(*store_, a, "train_loss"), range(1, 40));
  EXPECT_EQ(steps(*store_, b, "train_loss"), range(1, 40));
  // The loss at initialization once, at update 0: a resume does not evaluate it again.
  EXPECT_EQ(steps(*store_, b, "valid_loss"), (std::vector<int64_t>{0, 10, 20, 30, 40}));
  EXPECT_DOUBLE_EQ(series(*store_, b, "valid_loss").at(0), series(*store_, a, "valid_loss").at(0));

  const auto loss_a = series(*store_, a, "train_loss");
  const auto loss_b = series(*store_, b, "train_loss");
  const auto gnorm_a = series(*store_, a, "grad_norm");
  const auto gnorm_b = series(*store_, b, "grad_norm");
  for (int64_t step = 1; step <= 40; ++step) {
    EXPECT_DOUBLE_EQ(loss_b.at(step), loss_a.at(step)) << "train_loss at update " << step;
    EXPECT_DOUBLE_EQ(gnorm_b.at(step), gnorm_a.at(step)) << "grad_norm at update " << step;
  }
  const auto valid_a = series(*store_, a, "valid_loss");
  const auto valid_b = series(*store_, b, "valid_loss");
  for (int64_t step : {10, 20, 30, 40}) EXPECT_DOUBLE_EQ(valid_b.at(step), valid_a.at(step));
  // The x axes tokens and compute count on across the resume, each point as the
  // uninterrupted run's; compute grows with every update.
  for (const char* x : {"target_tokens", "train_flops"}) {
    const auto x_a = series(*store_, a, x), x_b = series(*store_, b, x);
    ASSERT_EQ(x_b.size(), 40u) << x;  // every log point
    for (int64_t step = 1; step <= 40; ++step) {
      EXPECT_DOUBLE_EQ(x_b.at(step), x_a.at(step)) << x << " at update " << step;
      EXPECT_GT(x_a.at(step), step > 1 ? x_a.at(step - 1) : 0.0) << x << " at update " << step;
    }
  }
  EXPECT_DOUBLE_EQ(store_->find_run(std::to_string(b))->final_metrics.at("train_flops"),
                   series(*store_, a, "train_flops").at(40));
  EXPECT_DOUBLE_EQ(store_->find_run(std::to_string(b))->final_metrics.at("test_ppl"),
                   store_->find_run(std::to_string(a))->final_metrics.at("test_ppl"));

  // The final parameters are bit-identical.
  const std::string last_a = recorded(a, "checkpoint_last");
  const std::string last_b = recorded(b, "checkpoint_last");
  Transformer model_a = load_model(config, last_a);
  Transformer model_b = load_model(config, last_b);
  const auto params_a = model_a->named_parameters();
  const auto params_b = model_b->named_parameters();
  ASSERT_EQ(params_a.size(), params_b.size());
  for (const auto& p : params_a) {
    const torch::Tensor* other = params_b.find(p.key());
    ASSERT_NE(other, nullptr) << p.key();
    EXPECT_TRUE(torch::equal(p.value(), *other)) << p.key();
  }
  // And they moved away from the initialization (the comparison is not vacuous).
  Transformer fresh =
      build_model(config, load_dataset(config.data, (dir_ / "cache").string(), "").vocab->size(),
                  config.train.seed);
  bool any_differs = false;
  for (const auto& p : fresh->named_parameters())
    any_differs = any_differs || !torch::equal(p.value(), *params_a.find(p.key()));
  EXPECT_TRUE(any_differs);
}

// A truncated checkpoint_last (a bad block, a copy cut short) costs one checkpoint interval,
// not the run: the resume falls back to checkpoint_previous (update 10 of 20), redoes
// updates 11-20 and ends on exactly the uninterrupted run's curve. When that one is unreadable
// too, the resume is refused naming the file, and the stored run is left exactly as it was.
TEST_F(TrainerTest, TruncatedLastCheckpointFallsBackToThePreviousOne) {
  RunConfig config = tiny_config();
  config.train.max_updates = 30;
  config.train.log_every = 1;
  config.train.valid_every = 10;
  const int64_t a = new_run(config);
  ASSERT_EQ(train(config, a).status, "finished");

  RunConfig first = config;
  first.train.max_updates = 20;
  const int64_t b = new_run(first);
  ASSERT_EQ(train(first, b).status, "finished");
  const fs::path last = recorded(b, "checkpoint_last");
  const fs::path previous = recorded(b, "checkpoint_previous");
  ASSERT_TRUE(fs::exists(previous));
  TrainerState at;
  {
    Transformer probe = load_model(config, previous.string());
    load_checkpoint(previous.string(), *probe, nullptr, &at);
  }
  EXPECT_EQ(at.update, 10);
  fs::resize_file(last, fs::file_size(last) / 2);

  const TrainOutcome resumed = train(config, b, /*resume=*/true);
  EXPECT_EQ(resumed.status, "finished");
  EXPECT_EQ(resumed.updates, 30);
  expect_same_train_loss(a, b, 30);

  // The unreadable file is no resume point any more: the one it fell back to took its place,
  // and this session's checkpoints followed it.
  EXPECT_FALSE(fs::exists(last));
  ASSERT_EQ(store_->find_run(std::to_string(b))->updates, 30);
  const fs::path last_now = recorded(b, "checkpoint_last");
  const fs::path previous_now = recorded(b, "checkpoint_previous");
  {
    TrainerState s;
    Transformer probe = load_model(config, previous_now.string());
    load_checkpoint(previous_now.string(), *probe, nullptr, &s);
    EXPECT_EQ(s.update, 20);
  }

  // Both unreadable: refused, naming the last one; the finished run is untouched.
  const db::RunRecord before = *store_->find_run(std::to_string(b));
  fs::resize_file(last_now, 100);
  fs::resize_file(previous_now, 100);
  RunConfig longer = config;
  longer.train.max_updates = 40;
  try {
    train(longer, b, /*resume=*/true);
    FAIL() << "expected UnreadableResumePoint";
  } catch (const UnreadableResumePoint& e) {
    EXPECT_EQ(e.file(), last_now.string());
    EXPECT_NE(e.message().find(previous_now.string()), std::string::npos) << e.what();
  }
  const db::RunRecord after = *store_->find_run(std::to_string(b));
  EXPECT_EQ(after.status, "finished");
  EXPECT_EQ(after.updates, before.updates);
  EXPECT_EQ(after.started_at, before.started_at);
  EXPECT_EQ(steps(*store_, b, "train_loss"), range(1, 30));
}

// A disk that fills up mid-run (the artifacts on a tmpfs the test mounts, sized to hold the
// first checkpoints but not the next) ends the run with an error naming the file, never a
// crash; the last good checkpoint stays loadable, and once there is space again the resume
// finishes on exactly the uninterrupted run's curve. Skipped with the reason when it cannot
// mount (not root).
TEST_F(TrainerTest, DiskFullEndsTheRunWithANamedErrorAndResumeFinishesIt) {
  RunConfig config = tiny_config();
  config.train.max_updates = 30;
  config.train.log_every = 1;
  config.train.valid_every = 10;
  const int64_t a = new_run(config);
  ASSERT_EQ(train(config, a).status, "finished");
  const auto size_of = [&](const char* kind) {
    return static_cast<int64_t>(fs::file_size(recorded(a, kind)));
  };
  const int64_t last = size_of("checkpoint_last"), best = size_of("checkpoint_best");

  const fs::path mount = dir_ / "small-disk";
  fs::create_directories(mount);
  // Room for the first best + last checkpoints (whole 4 KiB pages) and half of the next one.
  const auto pages = [](int64_t bytes) { return (bytes + 4095) / 4096 * 4096; };
  const int64_t room = pages(best) + pages(last) + pages(last / 2) + 16 * 4096;
  if (std::system(("mount -t tmpfs -o size=" + std::to_string(room) + " tmpfs '" + mount.string() +
                   "' 2>/dev/null")
                      .c_str()) != 0)
    GTEST_SKIP() << "cannot mount a tmpfs at " << mount << " (needs root)";
  struct Unmount {
    std::string at;
    ~Unmount() { std::system(("umount '" + at + "'").c_str()); }
  } unmount{mount.string()};

  const int64_t b = new_run(config);
  TrainOptions options;
  options.run_id = b;
  options.artifacts_dir = (mount / "run-b").string();
  options.cache_dir = (dir_ / "cache").string();
  options.progress = false;
  try {
    train_run(config, *store_, options);
    FAIL() << "expected the full disk to stop the run";
  } catch (const CheckpointWriteError& e) {
    EXPECT_NE(std::string(e.what()).find("checkpoint_last.u20.g1.pt"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("No space left"), std::string::npos) << e.what();
  }
  const fs::path good = recorded(b, "checkpoint_last");
  ASSERT_TRUE(fs::exists(good));
  // No half-written file left behind, and nothing beside what the store records.
  for (const auto& entry : fs::directory_iterator(options.artifacts_dir)) {
    const std::string path = entry.path().string();
    EXPECT_TRUE(path == good.string() || path == recorded(b, "checkpoint_best")) << path;
  }
  TrainerState at;
  {
    Transformer probe = load_model(config, good.string());
    load_checkpoint(good.string(), *probe, nullptr, &at);
  }
  EXPECT_EQ(at.update, 10);

  ASSERT_EQ(std::system(("mount -o remount,size=64m '" + mount.string() + "'").c_str()), 0);
  options.resume = true;
  EXPECT_EQ(train_run(config, *store_, options).status, "finished");
  expect_same_train_loss(a, b, 30);
}

// test.hyp that cannot be written (here a directory already holds its name; a full disk gives
// the same) ends the run with an error naming the file: before, the write failed silently and
// the run was recorded as finished with a hypotheses artifact that held nothing.
TEST_F(TrainerTest, UnwritableHypothesesEndTheRunWithAnErrorNamingTheFile) {
  const RunConfig config = tiny_config();
  const int64_t run = new_run(config);
  // A new run's first holder writes generation 1's files.
  fs::create_directories(fs::path(artifacts(run)) / "test.g1.hyp");
  try {
    train(config, run);
    FAIL() << "expected FileWriteError";
  } catch (const FileWriteError& e) {
    EXPECT_NE(std::string(e.what()).find("test.g1.hyp: cannot write the test hypotheses"),
              std::string::npos)
        << e.what();
  }
  EXPECT_NE(store_->find_run(std::to_string(run))->status, "finished");
}

// Divergence is a result, not an error: a learning rate of 1e3 blows the loss up right after
// the first update. The run is marked diverged at the update whose loss broke the rule
// (checked here from the logged curve, independently of the monitor), without an exception.
// A stop request (a worker's SIGUSR2 before preemption) between log points: the run stops at
// an update boundary with a checkpoint of exactly the updates done, and resuming it logs every
// row the uninterrupted run logs, with the same values -- the partial log window travels in the
// checkpoint. Fails if the stop loses or redoes updates, or if the first log point after the
// resume averages only the updates since the restart.
TEST_F(TrainerTest, StopRequestCheckpointsAndResumesToTheSameRows) {
  RunConfig config = tiny_config();
  config.train.max_updates = 80;
  config.train.log_every = 7;  // stops land between log points
  config.train.valid_every = 40;
  config.model.dropout = 0.1;
  const int64_t a = new_run(config);
  ASSERT_EQ(train(config, a).status, "finished");

  const int64_t b = new_run(config);
  // Asks for the stop once the run has logged step 14.
  const TrainOutcome stopped = train_stopped_when(
      config, b, [&](const db::Store& s) { return s.last_metric_step(b, "train_loss") >= 14; });
  ASSERT_EQ(stopped.status, "stopped");
  ASSERT_GE(stopped.updates, 14);
  ASSERT_LT(stopped.updates, 80);
  TrainerState state;
  Transformer model = load_model(config, recorded(b, "checkpoint_last"));
  load_checkpoint(recorded(b, "checkpoint_last"), *model, nullptr, &state);
  EXPECT_EQ(state.update, stopped.updates);  // exactly the updates done
  EXPECT_EQ(state.window.updates, stopped.updates % 7);
  EXPECT_EQ(store_->last_metric_step(b, "train_loss"), stopped.updates / 7 * 7);

  ASSERT_EQ(train(config, b, /*resume=*/true).status, "finished");
  // Both sessions count: the same target tokens as the uninterrupted run, and more time than
  // the first session alone.
  const auto final_a = store_->find_run(std::to_string(a))->final_metrics;
  const auto final_b = store_->find_run(std::to_string(b))->final_metrics;
  EXPECT_GT(state.train_tokens, 0);
  EXPECT_EQ(final_b.at("train_tokens"), final_a.at("train_tokens"));
  EXPECT_GT(final_b.at("train_time_s"), state.train_seconds);
  EXPECT_EQ(final_b.at("train_loss"), final_a.at("train_loss"));
  const auto rows_a = store_->metric_rows(a);
  const auto rows_b = store_->metric_rows(b);
  ASSERT_EQ(rows_a.size(), rows_b.size());
  for (size_t i = 0; i < rows_a.size(); ++i) {
    const auto& [step_a, name_a, value_a, wall_a] = rows_a[i];
    const auto& [step_b, name_b, value_b, wall_b] = rows_b[i];
    ASSERT_EQ(name_a, name_b);
    ASSERT_EQ(step_a, step_b) << name_a;
    if (db::metric::measures_the_machine(name_a)) continue;
    EXPECT_EQ(value_a, value_b) << name_a << " at update " << step_a;
  }
}

// A run killed after its last update, before its final evaluation ended: resuming it has no
// update left to train, yet it records every final metric the uninterrupted run has, with the
// same values where they are deterministic (train_loss from the stored curve; training tokens
// and time from the checkpoint). Simulated by giving a fresh run a finished run's checkpoints
// and curves but none of its final metrics.
TEST_F(TrainerTest, ResumedAfterTheLastUpdateStillRecordsEveryFinalMetric) {
  RunConfig config = tiny_config();
  config.train.max_updates = 20;
  config.train.log_every = 5;
  config.train.valid_every = 10;
  const int64_t a = new_run(config);
  ASSERT_EQ(train(config, a).status, "finished");
  const int64_t b = new_run(config);
  // Run b is run a killed right after its last update: its files, its rows, and the artifact
  // rows that say which files are its resume point (read by file name in b's directory).
  fs::copy(artifacts(a), artifacts(b), fs::copy_options::recursive);
  store_->write_metrics(b, store_->metric_rows(a));
  for (const auto& artifact : store_->artifacts(a))
    store_->add_artifact(b, artifact.kind, artifact.path, artifact.step);
  const TrainOutcome outcome = train(config, b, /*resume=*/true);
  ASSERT_EQ(outcome.status, "finished");
  EXPECT_EQ(outcome.updates, 20);
  const auto final_a = store_->find_run(std::to_string(a))->final_metrics;
  const auto final_b = store_->find_run(std::to_string(b))->final_metrics;
  for (const auto& [name, value] : final_a) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(final_b.count(name));
    if (name == "train_loss" || name == "train_tokens" || name == "train_flops" ||
        name == "test_ppl" || name == "valid_ppl" || name == "test_bleu" || name == "params") {
      EXPECT_EQ(final_b.at(name), value);
    }
  }
  // Training time comes from the checkpoint written at update 20, not from this session's
  // (empty) training: positive and at most the first session's whole time.
  EXPECT_GT(final_b.at("train_time_s"), 0);
  EXPECT_LE(final_b.at("train_time_s"), final_a.at("train_time_s"));
}

}  // namespace test_trainer_resume
}  // namespace fathom
