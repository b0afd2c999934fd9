#pragma once
// The trainer tests' fixture, shared by tests/core/test_trainer*.cpp: a tiny synthetic-task
// config that trains in seconds on one CPU thread (or on $FATHOM_TEST_DEVICE), a fresh store
// and artifacts directory per test, and readers of what a run stored.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "base/config/config.h"
#include "base/config/config_io.h"
#include "core/data/dataset.h"
#include "core/model/transformer.h"
#include "core/train/checkpoint.h"
#include "core/train/trainer.h"
#include "db/store.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_device.h"

namespace fathom::testing {
namespace fs = std::filesystem;

inline RunConfig tiny_config() {
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

inline std::map<int64_t, double> series(const db::Store& store, int64_t run,
                                        const std::string& name) {
  std::map<int64_t, double> out;
  for (const auto& p : store.metric_series(run, name)) out[p.step] = p.value;
  return out;
}

inline std::vector<int64_t> steps(const db::Store& store, int64_t run, const std::string& name) {
  std::vector<int64_t> out;
  for (const auto& p : store.metric_series(run, name)) out.push_back(p.step);
  return out;
}

inline std::vector<int64_t> range(int64_t first, int64_t last) {
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
  // Trains `run` and asks it to stop once `stop_when` holds of the store, read by another
  // thread over its own connection every millisecond -- the way a signal handler sets the flag
  // while the trainer is busy.
  TrainOutcome train_stopped_when(const RunConfig& config, int64_t run,
                                  const std::function<bool(const db::Store&)>& stop_when) {
    std::atomic<bool> stop{false}, done{false};
    std::thread watcher([&] {
      auto reader = db::Store::open((dir_ / "runs.db").string(), db::OpenMode::ReadOnly);
      while (!done && !stop_when(reader)) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      stop = true;
    });
    const TrainOutcome outcome = train(config, run, false, &stop);
    done = true;
    watcher.join();
    return outcome;
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

}  // namespace fathom::testing
