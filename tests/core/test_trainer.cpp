// The trainer end to end on the synthetic task with a tiny model (core/train/trainer.h):
// what a finished run leaves in the store and on disk, bit-exact resume, divergence handling
// and seed determinism. Each test trains for a few seconds on one CPU thread.
#include <gtest/gtest.h>

#include <unistd.h>
#include <atomic>
#include <chrono>
#include <thread>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "base/config/config.h"
#include "base/config/config_io.h"
#include "base/metrics/bleu.h"
#include "base/util/error.h"
#include "core/data/dataset.h"
#include "core/model/transformer.h"
#include "core/train/batch_stream.h"
#include "core/train/checkpoint.h"
#include "core/train/trainer.h"
#include "db/store.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_device.h"

namespace fathom {
namespace {
namespace fs = std::filesystem;

RunConfig tiny_config() {
  RunConfig c;
  c.name = "tiny";
  c.device = test_device_name();  // FATHOM_TEST_DEVICE: these tests run on a GPU too
  c.model.d_model = 16;
  c.model.heads = 2;
  c.model.d_ff = 32;
  c.model.encoder_layers = 1;
  c.model.decoder_layers = 1;
  c.model.dropout = 0.1;
  c.data.task = "synthetic";
  c.data.synthetic.vocab = 8;
  c.data.synthetic.train_size = 300;
  c.data.synthetic.valid_size = 20;
  c.data.synthetic.test_size = 10;
  c.data.max_tokens = 256;
  c.train.lr = 0.005;
  c.train.warmup = 10;
  c.train.max_updates = 25;
  c.train.valid_every = 10;
  c.train.log_every = 10;
  c.train.threads = 1;
  c.eval.beam = 2;
  c.eval.max_sentences = 5;
  return c;
}

std::map<int64_t, double> series(const db::Store& store, int64_t run, const std::string& name) {
  std::map<int64_t, double> out;
  for (const auto& p : store.metric_series(run, name)) out[p.step] = p.value;
  return out;
}

std::vector<int64_t> steps(const db::Store& store, int64_t run, const std::string& name) {
  std::vector<int64_t> out;
  for (const auto& p : store.metric_series(run, name)) out.push_back(p.step);
  return out;
}

std::vector<int64_t> range(int64_t first, int64_t last) {
  std::vector<int64_t> out;
  for (int64_t s = first; s <= last; ++s) out.push_back(s);
  return out;
}

// A fresh store and artifacts directory per test.
class TrainerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = std::make_unique<db::Store>(db::Store::open((dir_ / "runs.db").string()));
  }
  void TearDown() override { store_.reset(); }

  int64_t new_run(const RunConfig& config) {
    db::NewRun run;
    run.name = config.name;
    run.config_json = config_to_json(config).dump();
    run.config_yaml = config_to_yaml(config);
    return store_->create_run(run);
  }
  std::string artifacts(int64_t run) const {
    return (dir_ / ("run-" + std::to_string(run))).string();
  }
  TrainOutcome train(const RunConfig& config, int64_t run, bool resume = false,
                     const std::atomic<bool>* stop = nullptr) {
    TrainOptions options;
    options.run_id = run;
    options.artifacts_dir = artifacts(run);
    options.cache_dir = (dir_ / "cache").string();
    options.resume = resume;
    options.progress = false;
    options.stop_requested = stop;
    return train_run(config, *store_, options);
  }
  // Run b (resumed) logged train_loss at every update 1..last, each equal to run a's
  // (uninterrupted) bit for bit.
  void expect_same_train_loss(int64_t a, int64_t b, int64_t last) {
    EXPECT_EQ(steps(*store_, b, "train_loss"), range(1, last));
    const auto loss_a = series(*store_, a, "train_loss");
    const auto loss_b = series(*store_, b, "train_loss");
    for (int64_t step = 1; step <= last; ++step)
      EXPECT_DOUBLE_EQ(loss_b.at(step), loss_a.at(step)) << "train_loss at update " << step;
  }
  // The file the store records as `run`'s artifact `kind` ("" when none).
  std::string recorded(int64_t run, const std::string& kind) const {
    for (const auto& a : store_->artifacts(run))
      if (a.kind == kind) return a.path;
    return "";
  }
  // A model of `config`'s shape with the parameters of the checkpoint at `path`.
  Transformer load_model(const RunConfig& config, const std::string& path) {
    const Dataset data = load_dataset(config.data, (dir_ / "cache").string(), "");
    Transformer model = build_model(config, data.vocab->size(), /*seed=*/12345);
    load_checkpoint(path, *model, nullptr, nullptr);
    return model;
  }

  fathom::testing::TempDir scratch_;  // removed when the test ends
  const fs::path& dir_ = scratch_.path();
  std::unique_ptr<db::Store> store_;

  // Trains tiny_config() in fp32 and in `precision` (log every 5 updates) and checks that the
  // loss curve follows fp32's within 5 % at every log point, differs from it (autocast ran),
  // and falls by more than 20 % (see the two tests that call it for why these bounds).
  void expect_curve_follows_fp32(const std::string& precision) {
    RunConfig fp32 = tiny_config();
    fp32.train.log_every = 5;
    fp32.train.valid_every = 100;
    fp32.eval.max_sentences = 1;
    RunConfig reduced = fp32;
    reduced.train.precision = precision;
    const int64_t a = new_run(fp32);
    const int64_t b = new_run(reduced);
    ASSERT_EQ(train(fp32, a).status, "finished");
    ASSERT_EQ(train(reduced, b).status, "finished");
    const auto loss_a = series(*store_, a, "train_loss");
    const auto loss_b = series(*store_, b, "train_loss");
    ASSERT_EQ(loss_a.size(), loss_b.size());
    bool any_differs = false;
    for (const auto& [step, value] : loss_a) {
      EXPECT_NEAR(loss_b.at(step), value, 0.05 * value) << step;
      any_differs = any_differs || loss_b.at(step) != value;
    }
    EXPECT_TRUE(any_differs) << precision << " gave fp32's numbers: autocast did not run";
    EXPECT_LT(loss_a.rbegin()->second, 0.8 * loss_a.begin()->second);  // falls by > 20 %
    EXPECT_LT(loss_b.rbegin()->second, 0.8 * loss_b.begin()->second);
  }
};

// A short run completes and leaves everything the rest of the workbench reads: the status,
// the curves at exactly the logged steps, final metrics, artifacts on disk. A trainer that
// skipped the max_updates log point, forgot validation, or registered artifacts it never wrote
// fails here.
TEST_F(TrainerTest, ShortRunFinishesAndRecordsEverything) {
  const RunConfig config = tiny_config();  // 25 updates, log and validate every 10
  const int64_t run = new_run(config);
  const TrainOutcome outcome = train(config, run);

  EXPECT_EQ(outcome.status, "finished");
  EXPECT_FALSE(outcome.diverged_step.has_value());
  EXPECT_EQ(outcome.updates, 25);
  const auto record = store_->find_run(std::to_string(run));
  ASSERT_TRUE(record);
  EXPECT_EQ(record->status, "finished");
  EXPECT_EQ(record->updates, 25);
  EXPECT_FALSE(record->diverged_step.has_value());
  EXPECT_GT(record->started_at, 0);
  EXPECT_GE(record->finished_at, record->started_at);
  EXPECT_EQ(record->device, test_device().str());

  // Logged every 10 updates and at the last one; validated at the same points.
  const std::vector<int64_t> expected_steps = {10, 20, 25};
  for (const char* name : {"train_loss", "train_nll", "train_ppl", "lr", "grad_norm", "valid_loss",
                           "valid_nll", "valid_ppl"})
    EXPECT_EQ(steps(*store_, run, name), expected_steps) << name;
  // Perplexity is exp of the unsmoothed NLL (methods.md s1), for train and valid points.
  for (const char* prefix : {"train", "valid"}) {
    const auto nll = series(*store_, run, std::string(prefix) + "_nll");
    const auto ppl = series(*store_, run, std::string(prefix) + "_ppl");
    for (const auto& [step, value] : nll)
      EXPECT_NEAR(ppl.at(step), std::exp(value), 1e-9 * ppl.at(step));
  }
  // Learning rate follows the inverse-sqrt schedule: peak*sqrt(warmup/step) after warmup 10.
  const auto lr = series(*store_, run, "lr");
  EXPECT_NEAR(lr.at(10), 0.005, 1e-15);
  EXPECT_NEAR(lr.at(20), 0.005 * std::sqrt(10.0 / 20.0), 1e-15);
  EXPECT_NEAR(lr.at(25), 0.005 * std::sqrt(10.0 / 25.0), 1e-15);
  // Learning happens: the loss falls from the first log point to the last.
  const auto loss = series(*store_, run, "train_loss");
  EXPECT_LT(loss.at(25), loss.at(10));

  // Final metrics (store and outcome agree).
  for (const char* name : {"valid_loss", "valid_ppl", "test_loss", "test_ppl", "test_bleu",
                           "params", "train_time_s"}) {
    ASSERT_TRUE(record->final_metrics.count(name)) << name;
    ASSERT_TRUE(outcome.final_metrics.count(name)) << name;
    EXPECT_DOUBLE_EQ(record->final_metrics.at(name), outcome.final_metrics.at(name)) << name;
  }

  // Artifacts exist on disk; the best checkpoint is the one with the lowest validation loss.
  std::map<std::string, db::Artifact> by_kind;
  for (const auto& a : store_->artifacts(run)) by_kind[a.kind] = a;
  for (const char* kind : {"checkpoint_last", "checkpoint_best", "hypotheses"}) {
    ASSERT_TRUE(by_kind.count(kind)) << kind;
    EXPECT_TRUE(fs::exists(by_kind[kind].path)) << kind << " " << by_kind[kind].path;
  }
  EXPECT_EQ(by_kind["checkpoint_last"].step, 25);
  const auto valid = series(*store_, run, "valid_loss");
  const auto best = std::min_element(
      valid.begin(), valid.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  EXPECT_EQ(by_kind["checkpoint_best"].step, best->first);
  // The final valid_loss is measured on the best checkpoint, so it equals that point.
  EXPECT_NEAR(record->final_metrics.at("valid_loss"), best->second, 1e-9);
  // One hypothesis per evaluated test sentence (eval.max_sentences = 5).
  std::ifstream hyp(by_kind["hypotheses"].path);
  int lines = 0;
  for (std::string line; std::getline(hyp, line);) ++lines;
  EXPECT_EQ(lines, 5);

  // test_ppl recomputed here from the best checkpoint, one test sentence at a time (no
  // batching, no padding): exp of the mean unsmoothed NLL per target token (methods.md s1).
  Transformer best_model = load_model(config, by_kind["checkpoint_best"].path);
  best_model->eval();
  const Dataset data = load_dataset(config.data, (dir_ / "cache").string(), "");
  double nll = 0;
  int64_t tokens = 0;
  {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < data.test.size(); ++i) {
      const Batch one = collate(data.test, {i});
      const torch::Tensor logp =
          torch::log_softmax(best_model->forward(one.src, one.tgt_in).to(torch::kFloat64), -1);
      nll -= logp.gather(-1, one.tgt_out.unsqueeze(-1)).sum().item<double>();
      tokens += one.tgt_tokens;
    }
  }
  EXPECT_NEAR(record->final_metrics.at("test_ppl"), std::exp(nll / tokens),
              1e-4 * std::exp(nll / tokens));
  // test_bleu is the corpus BLEU of exactly the hypotheses written to disk against the first
  // eval.max_sentences references.
  std::vector<std::string> written;
  std::ifstream again(by_kind["hypotheses"].path);
  for (std::string line; std::getline(again, line);) written.push_back(line);
  const std::vector<std::string> refs(data.test_target.begin(), data.test_target.begin() + 5);
  EXPECT_DOUBLE_EQ(record->final_metrics.at("test_bleu"), corpus_bleu(written, refs).score);
  // The checkpoint carries the config the run was trained with.
  EXPECT_EQ(checkpoint_config(by_kind["checkpoint_last"].path), config_to_yaml(config));
}

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
  EXPECT_EQ(steps(*store_, b, "valid_loss"), (std::vector<int64_t>{10, 20, 30, 40}));

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
  std::atomic<bool> stop{false};
  std::atomic<bool> done{false};
  // Asks for the stop once the run has logged step 14, from another thread and connection,
  // the way a signal handler sets it while the trainer is busy.
  std::thread watcher([&] {
    auto reader = db::Store::open((dir_ / "runs.db").string(), db::OpenMode::ReadOnly);
    while (!done && reader.last_metric_step(b, "train_loss") < 14)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    stop = true;
  });
  const TrainOutcome stopped = train(config, b, false, &stop);
  done = true;
  watcher.join();
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
    if (name_a == "tokens_per_s") continue;  // a timing
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
    if (name == "train_loss" || name == "train_tokens" || name == "test_ppl" ||
        name == "valid_ppl" || name == "test_bleu" || name == "params")
      EXPECT_EQ(final_b.at(name), value);
  }
  // Training time comes from the checkpoint written at update 20, not from this session's
  // (empty) training: positive and at most the first session's whole time.
  EXPECT_GT(final_b.at("train_time_s"), 0);
  EXPECT_LE(final_b.at("train_time_s"), final_a.at("train_time_s"));
}

TEST_F(TrainerTest, HugeLearningRateDivergesAtTheOffendingUpdate) {
  RunConfig config = tiny_config();
  config.train.lr = 1e3;
  config.train.warmup = 0;
  config.train.log_every = 1;
  config.train.max_updates = 20;
  config.train.divergence_factor = 10.0;
  const int64_t run = new_run(config);
  TrainOutcome outcome;
  ASSERT_NO_THROW(outcome = train(config, run));

  EXPECT_EQ(outcome.status, "diverged");
  ASSERT_TRUE(outcome.diverged_step.has_value());
  EXPECT_FALSE(outcome.reason.empty());
  const auto record = store_->find_run(std::to_string(run));
  EXPECT_EQ(record->status, "diverged");
  ASSERT_TRUE(record->diverged_step.has_value());
  EXPECT_EQ(*record->diverged_step, *outcome.diverged_step);
  EXPECT_EQ(outcome.updates, *outcome.diverged_step - 1);  // the diverged update is not applied

  // From the curve: the first update whose loss is non-finite or above 10x the first loss.
  const auto loss = series(*store_, run, "train_loss");
  ASSERT_FALSE(loss.empty());
  const double first = loss.begin()->second;
  int64_t expected = -1;
  for (const auto& [step, value] : loss)
    if (!std::isfinite(value) || value > 10.0 * first) {
      expected = step;
      break;
    }
  EXPECT_EQ(*outcome.diverged_step, expected);
  EXPECT_EQ(loss.rbegin()->first, expected);  // nothing logged after divergence
  EXPECT_LT(*outcome.diverged_step, config.train.max_updates);
}

// A non-finite loss is divergence even with the loss-ratio rule switched off: lr 1e30 pushes
// float32 parameters to overflow after one update.
TEST_F(TrainerTest, NonFiniteLossDivergesEvenWithTheRatioRuleOff) {
  RunConfig config = tiny_config();
  config.train.lr = 1e30;
  config.train.warmup = 0;
  config.train.log_every = 1;
  config.train.max_updates = 10;
  config.train.divergence_factor = 0.0;
  const int64_t run = new_run(config);
  TrainOutcome outcome;
  ASSERT_NO_THROW(outcome = train(config, run));
  EXPECT_EQ(outcome.status, "diverged");
  ASSERT_TRUE(outcome.diverged_step.has_value());
  EXPECT_NE(outcome.reason.find("non-finite"), std::string::npos) << outcome.reason;
  const auto record = store_->find_run(std::to_string(run));
  EXPECT_EQ(record->status, "diverged");
  EXPECT_EQ(record->diverged_step, outcome.diverged_step);
  // The logged value at the diverged step is the non-finite one (stored as NULL -> NaN, or inf).
  const auto loss = series(*store_, run, "train_loss");
  ASSERT_TRUE(loss.count(*outcome.diverged_step));
  EXPECT_FALSE(std::isfinite(loss.at(*outcome.diverged_step)));
  for (const auto& [step, value] : loss) {
    if (step < *outcome.diverged_step) {
      EXPECT_TRUE(std::isfinite(value)) << step;
    }
  }
}

// The same seed gives the same run; a different seed a different one. Without re-seeding
// (parameters, dropout, batch order) the first comparison fails; if the seed were ignored,
// the second does.
TEST_F(TrainerTest, SameSeedSameLossesDifferentSeedDifferent) {
  RunConfig config = tiny_config();
  config.train.max_updates = 12;
  config.train.log_every = 1;
  config.train.valid_every = 100;
  config.eval.max_sentences = 1;
  const int64_t r1 = new_run(config);
  const int64_t r2 = new_run(config);
  train(config, r1);
  train(config, r2);
  RunConfig other = config;
  other.train.seed = 2;
  const int64_t r3 = new_run(other);
  train(other, r3);

  const auto l1 = series(*store_, r1, "train_loss");
  const auto l2 = series(*store_, r2, "train_loss");
  const auto l3 = series(*store_, r3, "train_loss");
  ASSERT_EQ(l1.size(), 12u);
  ASSERT_EQ(l2.size(), 12u);
  ASSERT_EQ(l3.size(), 12u);
  for (const auto& [step, value] : l1) EXPECT_DOUBLE_EQ(l2.at(step), value) << step;
  int differing = 0;
  for (const auto& [step, value] : l1) differing += (l3.at(step) != value);
  EXPECT_GE(differing, 10);
}

// The update loop reads its metrics from the device only at log and validation points. A run
// that logs every 5 updates must log, at each point, the token-weighted mean of the losses
// that a run logging every update (reading every update) records, and the mean of its
// gradient norms; the token counts come from replaying the batch stream here. The final
// parameters must be bit-identical: reading less often changes no computation.
TEST_F(TrainerTest, SparseLogPointsAverageThePerUpdateValues) {
  RunConfig every = tiny_config();
  every.train.max_updates = 20;
  every.train.log_every = 1;
  every.train.valid_every = 10;
  every.eval.max_sentences = 1;
  RunConfig sparse = every;
  sparse.train.log_every = 5;
  const int64_t a = new_run(every);
  const int64_t b = new_run(sparse);
  ASSERT_EQ(train(every, a).status, "finished");
  ASSERT_EQ(train(sparse, b).status, "finished");

  const Dataset data = load_dataset(every.data, (dir_ / "cache").string(), "");
  const BatchPlan plan = plan_batches(data.train, every.data.max_tokens);
  BatchStream stream(data.train, plan, every.train.seed, 0, 0);
  std::map<int64_t, int64_t> tokens;
  for (int64_t u = 1; u <= 20; ++u) tokens[u] = stream.next().tgt_tokens;

  const auto loss_a = series(*store_, a, "train_loss");
  const auto nll_a = series(*store_, a, "train_nll");
  const auto norm_a = series(*store_, a, "grad_norm");
  const auto loss_b = series(*store_, b, "train_loss");
  const auto nll_b = series(*store_, b, "train_nll");
  const auto norm_b = series(*store_, b, "grad_norm");
  EXPECT_EQ(steps(*store_, b, "train_loss"), (std::vector<int64_t>{5, 10, 15, 20}));
  for (int64_t end : {5, 10, 15, 20}) {
    double loss = 0, nll = 0, norm = 0, count = 0;
    for (int64_t u = end - 4; u <= end; ++u) {
      loss += loss_a.at(u) * tokens[u];
      nll += nll_a.at(u) * tokens[u];
      norm += norm_a.at(u);
      count += tokens[u];
    }
    EXPECT_NEAR(loss_b.at(end), loss / count, 1e-12 * loss_b.at(end)) << end;
    EXPECT_NEAR(nll_b.at(end), nll / count, 1e-12 * nll_b.at(end)) << end;
    EXPECT_NEAR(norm_b.at(end), norm / 5, 1e-12 * norm_b.at(end)) << end;
  }
  for (int64_t step : {10, 20})
    EXPECT_DOUBLE_EQ(series(*store_, b, "valid_loss").at(step),
                     series(*store_, a, "valid_loss").at(step));
  Transformer model_a = load_model(every, recorded(a, "checkpoint_last"));
  Transformer model_b = load_model(every, recorded(b, "checkpoint_last"));
  const auto params_b = model_b->named_parameters();
  for (const auto& p : model_a->named_parameters())
    EXPECT_TRUE(torch::equal(p.value(), *params_b.find(p.key()))) << p.key();
}

// Divergence is flagged on the device and read at log points, yet the run still reports the
// first update that broke the rule, with that update's loss: the same as a run that reads
// every update. Nothing after it is logged, and no checkpoint holds a diverged update.
TEST_F(TrainerTest, DivergenceBetweenLogPointsIsPinnedToItsUpdate) {
  RunConfig every = tiny_config();
  every.train.lr = 1e3;
  every.train.warmup = 0;
  every.train.log_every = 1;
  every.train.valid_every = 100;
  every.train.max_updates = 30;
  RunConfig sparse = every;
  sparse.train.log_every = 7;
  const int64_t a = new_run(every);
  const int64_t b = new_run(sparse);
  const TrainOutcome outcome_a = train(every, a);
  const TrainOutcome outcome_b = train(sparse, b);
  ASSERT_EQ(outcome_a.status, "diverged");
  ASSERT_EQ(outcome_b.status, "diverged");
  ASSERT_TRUE(outcome_b.diverged_step.has_value());
  EXPECT_EQ(*outcome_b.diverged_step, *outcome_a.diverged_step);
  EXPECT_EQ(outcome_b.reason, outcome_a.reason);
  EXPECT_EQ(outcome_b.updates, *outcome_b.diverged_step - 1);
  EXPECT_EQ(store_->find_run(std::to_string(b))->diverged_step, outcome_a.diverged_step);
  const int64_t at = *outcome_a.diverged_step;
  const auto loss_a = series(*store_, a, "train_loss");
  const auto loss_b = series(*store_, b, "train_loss");
  ASSERT_TRUE(loss_b.count(at));
  if (std::isfinite(loss_a.at(at))) {
    EXPECT_DOUBLE_EQ(loss_b.at(at), loss_a.at(at));
  } else {
    EXPECT_FALSE(std::isfinite(loss_b.at(at)));
  }
  EXPECT_EQ(loss_b.rbegin()->first, at);
  // The only other points are the log points before it.
  for (const auto& [step, value] : loss_b)
    if (step != at) EXPECT_EQ(step % 7, 0) << step;
}

// bf16 autocast on the CPU: the loss curve follows fp32's. bf16 keeps 8 significant bits
// (unit roundoff 2^-8, 0.4% per rounded value); the matrix products accumulate in float32 and
// the loss is computed in float32, so one step's loss differs by well under 1%, and over 25
// updates at lr 5e-3 the trajectories drift apart slowly (measured here: < 0.1% at the end
// of a 40-update run). 5% at every logged point leaves room for that drift and is far
// tighter than the curve's own fall (checked: > 20%), so a broken cast (a wrong scale, a
// model that stops learning) fails.
TEST_F(TrainerTest, Bf16LossCurveFollowsFp32) { expect_curve_follows_fp32("bf16"); }

// fp16 needs CUDA: on the CPU the run is refused with a config error naming the key, before
// any training (the store keeps no metrics).
TEST_F(TrainerTest, Fp16OnTheCpuIsAConfigError) {
  if (!testing_on_cpu()) GTEST_SKIP() << "on " << test_device() << " fp16 trains (next test)";
  RunConfig config = tiny_config();
  config.train.precision = "fp16";
  const int64_t run = new_run(config);
  try {
    train(config, run);
    FAIL() << "fp16 on the CPU trained";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "train.precision");
  }
  EXPECT_TRUE(store_->metric_series(run, "train_loss").empty());
}

// fp16 on CUDA: autocast to float16 with the dynamic loss scaler (core/train/loss_scaler.h).
// float16 keeps 11 significant bits (better than bf16's 8) but a narrow range, which the scaler
// covers: the curve follows fp32's as bf16's does, and no update is lost to overflow forever
// (the run finishes with a falling loss).
TEST_F(TrainerTest, Fp16WithTheLossScalerFollowsFp32OnCuda) {
  if (testing_on_cpu()) GTEST_SKIP() << "fp16 needs CUDA (FATHOM_TEST_DEVICE=cuda)";
  expect_curve_follows_fp32("fp16");
}

// Activation checkpointing changes memory, not results: the same curve (to float rounding of
// summed gradients) as the plain run, with dropout on.
TEST_F(TrainerTest, CheckpointedActivationsTrainTheSameCurve) {
  RunConfig plain = tiny_config();
  plain.model.encoder_layers = 2;
  plain.model.decoder_layers = 2;
  plain.train.max_updates = 10;
  plain.train.log_every = 1;
  plain.train.valid_every = 100;
  plain.eval.max_sentences = 1;
  RunConfig checkpointed = plain;
  checkpointed.train.checkpoint_activations = true;
  const int64_t a = new_run(plain);
  const int64_t b = new_run(checkpointed);
  ASSERT_EQ(train(plain, a).status, "finished");
  ASSERT_EQ(train(checkpointed, b).status, "finished");
  const auto loss_a = series(*store_, a, "train_loss");
  const auto loss_b = series(*store_, b, "train_loss");
  ASSERT_EQ(loss_a.size(), 10u);
  for (const auto& [step, value] : loss_a)
    EXPECT_NEAR(loss_b.at(step), value, 1e-5 * value) << step;
}

}  // namespace
}  // namespace fathom
