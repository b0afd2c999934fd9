// The trainer end to end on the synthetic task with a tiny model (core/train/trainer.h): what
// a finished run leaves in the store and on disk, divergence handling, seed determinism, the
// precisions and activation checkpointing. Interruptions and resumes: test_trainer_resume.cpp.
// Each test trains for a few seconds on one CPU thread.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "base/config/config.h"
#include "base/config/config_io.h"
#include "base/metrics/bleu.h"
#include "base/metrics/perplexity_bootstrap.h"
#include "base/util/error.h"
#include "core/data/batch.h"
#include "core/data/dataset.h"
#include "core/model/transformer.h"
#include "core/train/batch_stream.h"
#include "core/train/checkpoint.h"
#include "core/train/trainer.h"
#include "db/store.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_device.h"
#include "tests/support/trainer_test_fixture.h"

namespace fathom {
namespace test_trainer {
namespace fs = std::filesystem;
using testing::range;
using testing::series;
using testing::steps;
using testing::tiny_config;
using testing::TrainerTest;

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

  // Logged every 10 updates and at the last one; validated at the same points and once
  // before the first update (update 0: the loss at initialization).
  const std::vector<int64_t> expected_steps = {10, 20, 25};
  for (const char* name : {"train_loss", "train_nll", "train_ppl", "lr", "grad_norm"})
    EXPECT_EQ(steps(*store_, run, name), expected_steps) << name;
  for (const char* name : {"valid_loss", "valid_nll", "valid_ppl"})
    EXPECT_EQ(steps(*store_, run, name), (std::vector<int64_t>{0, 10, 20, 25})) << name;
  // An untrained model predicts nearly uniformly: its loss is near ln V, and every trained
  // point is below it.
  const auto valid_points = series(*store_, run, "valid_loss");
  const double ln_v = std::log(std::stod(store_->tags(run).at("vocab.size")));
  EXPECT_NEAR(valid_points.at(0), ln_v, 1.0);
  for (int64_t step : {10, 20, 25}) EXPECT_LT(valid_points.at(step), valid_points.at(0)) << step;
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
  for (const char* kind :
       {"checkpoint_last", "checkpoint_best", "hypotheses", "valid_nll", "test_nll"}) {
    ASSERT_TRUE(by_kind.count(kind)) << kind;
    EXPECT_TRUE(fs::exists(by_kind[kind].path)) << kind << " " << by_kind[kind].path;
  }
  EXPECT_EQ(by_kind["checkpoint_last"].step, 25);
  auto valid = series(*store_, run, "valid_loss");
  valid.erase(0);  // the untrained model is never the best checkpoint
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
  std::vector<SegmentNll> segments;  // each sentence's, for the stored test.nll
  {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < data.test.size(); ++i) {
      const Batch one = collate(data.test, {i});
      const torch::Tensor logp =
          torch::log_softmax(best_model->forward(one.src, one.tgt_in).to(torch::kFloat64), -1);
      segments.push_back(
          {-logp.gather(-1, one.tgt_out.unsqueeze(-1)).sum().item<double>(), one.tgt_tokens});
      nll += segments.back().nll;
      tokens += one.tgt_tokens;
    }
  }
  EXPECT_NEAR(record->final_metrics.at("test_ppl"), std::exp(nll / tokens),
              1e-4 * std::exp(nll / tokens));
  // The stored NLL of every test sentence (test.nll, for paired perplexity tests): the same
  // sentences in order, each as computed here alone, and together the run's test_ppl.
  const auto stored = read_segment_nll_file(by_kind["test_nll"].path);
  ASSERT_EQ(stored.size(), segments.size());
  for (size_t i = 0; i < stored.size(); ++i) {
    EXPECT_EQ(stored[i].tokens, segments[i].tokens) << "sentence " << i;
    EXPECT_NEAR(stored[i].nll, segments[i].nll, 1e-4 * segments[i].nll) << "sentence " << i;
  }
  EXPECT_NEAR(corpus_perplexity(stored), record->final_metrics.at("test_ppl"),
              1e-6 * record->final_metrics.at("test_ppl"));
  const auto stored_valid = read_segment_nll_file(by_kind["valid_nll"].path);
  EXPECT_EQ(stored_valid.size(), data.valid.size());
  EXPECT_NEAR(corpus_perplexity(stored_valid), record->final_metrics.at("valid_ppl"),
              1e-6 * record->final_metrics.at("valid_ppl"));
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

// The schedule drives the optimizer, not only the lr curve: wsd over 25 updates with
// decay_fraction 0.2 holds the peak through update 20 and falls along 1 - sqrt(p) to
// min_lr_ratio x peak at update 25. With a minimum of 0 the last update moves no parameter
// (checkpoint_24 equals checkpoint_last), with 0.5 it does. Fails when the trainer or its
// logged lr ignores train.schedule.
TEST_F(TrainerTest, TheScheduleSetsTheRateOfEveryUpdate) {
  RunConfig config = tiny_config();  // 25 updates, warmup 10, lr 0.005, logged every 10
  config.train.schedule = "wsd";
  config.train.decay_fraction = 0.2;
  config.train.keep_checkpoint_every = 12;
  config.eval.max_sentences = 1;
  const int64_t to_zero = new_run(config);
  ASSERT_EQ(train(config, to_zero).status, "finished");
  const auto lr = series(*store_, to_zero, "lr");
  EXPECT_DOUBLE_EQ(lr.at(10), 0.005);
  EXPECT_DOUBLE_EQ(lr.at(20), 0.005);
  EXPECT_NEAR(lr.at(25), 0.0, 1e-18);

  config.train.min_lr_ratio = 0.5;
  const int64_t to_half = new_run(config);
  ASSERT_EQ(train(config, to_half).status, "finished");
  EXPECT_NEAR(series(*store_, to_half, "lr").at(25), 0.0025, 1e-15);

  for (const int64_t run : {to_zero, to_half}) {
    Transformer before = load_model(config, recorded(run, "checkpoint_24"));
    Transformer last = load_model(config, recorded(run, "checkpoint_last"));
    const auto after = last->named_parameters();
    bool same = true;
    for (const auto& p : before->named_parameters())
      same = same && torch::equal(p.value(), *after.find(p.key()));
    EXPECT_EQ(same, run == to_zero) << "run " << run;
  }
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
    if (step != at) {
      EXPECT_EQ(step % 7, 0) << step;
    }
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

// tf32 on CUDA: float32 throughout, the products rounded to TF32's 10-bit mantissa; the curve
// follows fp32's within 5 %, and the run leaves LibTorch's switches as it found them. On the
// CPU: a config error naming the key before any training.
TEST_F(TrainerTest, Tf32FollowsFp32OnCudaAndIsAConfigErrorOnTheCpu) {
  RunConfig fp32 = tiny_config();
  fp32.train.log_every = 5;
  fp32.train.valid_every = 100;
  fp32.eval.max_sentences = 1;
  RunConfig tf32 = fp32;
  tf32.train.precision = "tf32";
  const int64_t b = new_run(tf32);
  if (testing_on_cpu()) {
    try {
      train(tf32, b);
      FAIL() << "tf32 on the CPU trained";
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), "train.precision");
    }
    EXPECT_TRUE(store_->metric_series(b, "train_loss").empty());
    return;
  }
  const bool before = at::globalContext().allowTF32CuBLAS();
  const int64_t a = new_run(fp32);
  ASSERT_EQ(train(fp32, a).status, "finished");
  ASSERT_EQ(train(tf32, b).status, "finished");
  EXPECT_EQ(at::globalContext().allowTF32CuBLAS(), before);
  const auto loss_a = series(*store_, a, "train_loss"), loss_b = series(*store_, b, "train_loss");
  ASSERT_EQ(loss_a.size(), loss_b.size());
  for (const auto& [step, value] : loss_a) EXPECT_NEAR(loss_b.at(step), value, 0.05 * value);
  EXPECT_LT(loss_b.rbegin()->second, 0.8 * loss_b.begin()->second);  // it learns
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

}  // namespace test_trainer
}  // namespace fathom
