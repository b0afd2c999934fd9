// BLEU at each validation (train.valid_bleu): a valid_bleu row at every validation point, the
// last equal to the corpus BLEU of a fresh decode of the run's last checkpoint with the eval
// section's search (so it measures as test_bleu does), the final valid_bleu the best
// checkpoint's, training unchanged by it, and a language model's config refused naming the key.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/config/config_io.h"
#include "base/metrics/bleu.h"
#include "core/data/dataset.h"
#include "core/train/checkpoint.h"
#include "core/train/evaluate.h"
#include "core/train/final_evaluation.h"
#include "db/metric_names.h"
#include "db/store.h"
#include "tests/support/input_error.h"
#include "tests/support/test_device.h"
#include "tests/support/trainer_test_fixture.h"

namespace fathom {
namespace test_valid_bleu {
using testing::series;
using testing::tiny_config;
using testing::TrainerTest;

TEST_F(TrainerTest, EachValidationLogsTheBleuOfTheFirstSentences) {
  RunConfig none = tiny_config();  // 25 updates, validated at 10, 20 and 25; beam 2
  RunConfig four = tiny_config();
  four.train.valid_bleu = 4;
  const int64_t a = new_run(none), b = new_run(four);
  ASSERT_EQ(train(none, a).status, "finished");
  const TrainOutcome outcome = train(four, b);
  ASSERT_EQ(outcome.status, "finished");
  EXPECT_EQ(series(*store_, a, "train_loss"), series(*store_, b, "train_loss"));
  EXPECT_EQ(series(*store_, a, "valid_loss"), series(*store_, b, "valid_loss"));
  EXPECT_TRUE(series(*store_, a, db::metric::kValidBleu).empty());

  const auto bleu = series(*store_, b, db::metric::kValidBleu);
  ASSERT_EQ(bleu.size(), 3u);
  EXPECT_EQ(bleu.begin()->first, 10);
  EXPECT_EQ(bleu.rbegin()->first, 25);

  const Dataset data = load_dataset(four.data, (dir_ / "cache").string(), "");
  Transformer model = load_model(four, recorded(b, "checkpoint_last"));  // saved at update 25
  model->to(test_device());
  const std::vector<Example> first(data.valid.begin(), data.valid.begin() + 4);
  const std::vector<std::string> references(data.valid_target.begin(),
                                            data.valid_target.begin() + 4);
  const SearchOptions beam{four.eval.beam, four.eval.length_penalty, four.eval.max_len_a,
                           four.eval.max_len_b};
  const auto fresh =
      translate(*model, first, *data.vocab, beam, four.data.max_tokens, test_device());
  EXPECT_DOUBLE_EQ(bleu.rbegin()->second, corpus_bleu(fresh, references).score);
  // Not vacuous: the model has learnt something by then (the copy-like synthetic task).
  EXPECT_GT(bleu.rbegin()->second, 0.0);

  // The final valid_bleu, as every final validation metric, is the best checkpoint's (by the
  // validation loss), and only the run with train.valid_bleu has one.
  Transformer best = load_model(four, recorded(b, "checkpoint_best"));
  best->to(test_device());
  ASSERT_TRUE(outcome.final_metrics.count(db::metric::kValidBleu));
  EXPECT_DOUBLE_EQ(outcome.final_metrics.at(db::metric::kValidBleu),
                   validation_bleu(*best, data, four, test_device(), 4)->score);
  EXPECT_DOUBLE_EQ(store_->find_run(std::to_string(b))->final_metrics.at(db::metric::kValidBleu),
                   outcome.final_metrics.at(db::metric::kValidBleu));
  EXPECT_FALSE(store_->find_run(std::to_string(a))->final_metrics.count(db::metric::kValidBleu));
}

// A stop request (preemption's warning) during a validation's BLEU decode ends the decode at
// its next batch instead of waiting for it: the run stops after that update with its valid
// loss logged, the BLEU point recorded as pending in the checkpoint, and the session resuming
// from it decodes the point first -- every row then equals the uninterrupted run's. The stop
// is asked from another thread once the validation's samples (stored just before the decode)
// appear; the decode of 1,500 sentences takes hundreds of times longer than the watcher's
// reaction. Fails if the stop waits for the decode, loses the point, or decodes it twice.
TEST_F(TrainerTest, AStopDuringTheBleuDecodeEndsItAndTheResumedRunDecodesItFirst) {
  RunConfig config = tiny_config();
  config.data.synthetic.valid_size = 1500;
  config.train.valid_bleu = 1500;
  config.train.valid_samples = 1;
  config.train.max_updates = 20;
  config.eval.beam = 4;
  config.eval.max_sentences = 1;
  const int64_t a = new_run(config);
  ASSERT_EQ(train(config, a).status, "finished");

  const int64_t b = new_run(config);
  const TrainOutcome stopped = train_stopped_when(
      config, b, [&](const db::Store& s) { return s.tags(b).count("samples.u10") > 0; });
  ASSERT_EQ(stopped.status, "stopped");
  EXPECT_EQ(stopped.updates, 10);
  TrainerState state;
  Transformer model = load_model(config, recorded(b, "checkpoint_last"));
  load_checkpoint(recorded(b, "checkpoint_last"), *model, nullptr, &state);
  EXPECT_EQ(state.update, 10);
  EXPECT_EQ(state.valid_bleu_pending, 10);
  EXPECT_TRUE(series(*store_, b, db::metric::kValidLoss).count(10));
  EXPECT_FALSE(series(*store_, b, db::metric::kValidBleu).count(10));

  ASSERT_EQ(train(config, b, /*resume=*/true).status, "finished");
  const auto bleu_a = series(*store_, a, db::metric::kValidBleu);
  EXPECT_EQ(bleu_a.size(), 2u);
  EXPECT_EQ(series(*store_, b, db::metric::kValidBleu), bleu_a);
  EXPECT_EQ(series(*store_, b, db::metric::kValidLoss), series(*store_, a, db::metric::kValidLoss));
  EXPECT_EQ(store_->find_run(std::to_string(b))->final_metrics.at(db::metric::kValidBleu),
            store_->find_run(std::to_string(a))->final_metrics.at(db::metric::kValidBleu));
}

// With train.best_metric valid_bleu the cut-short validation is also uncounted in the
// checkpoint (no checkpoint_best, patience's count untouched) and counted by the resume, on the
// weights it measured: checkpoint_best and the model evaluated are the uninterrupted run's.
TEST_F(TrainerTest, OnValidBleuTheResumeCountsTheValidationAStopCutShort) {
  RunConfig config = tiny_config();
  config.data.synthetic.valid_size = 1500;
  config.train.valid_bleu = 1500;
  config.train.best_metric = db::metric::kValidBleu;
  config.train.valid_samples = 1;
  config.train.max_updates = 10;  // the cut-short validation is the only one
  config.eval.beam = 4;
  config.eval.max_sentences = 1;
  const int64_t a = new_run(config);
  ASSERT_EQ(train(config, a).status, "finished");

  const int64_t b = new_run(config);
  ASSERT_EQ(train_stopped_when(config, b,
                               [&](const db::Store& s) { return s.tags(b).count("samples.u10"); })
                .status,
            "stopped");
  TrainerState state;
  Transformer model = load_model(config, recorded(b, "checkpoint_last"));
  load_checkpoint(recorded(b, "checkpoint_last"), *model, nullptr, &state);
  EXPECT_EQ(state.valid_bleu_pending, 10);
  EXPECT_EQ(state.validation.best_update, 0);  // uncounted
  EXPECT_EQ(recorded(b, "checkpoint_best"), "");

  ASSERT_EQ(train(config, b, /*resume=*/true).status, "finished");
  EXPECT_EQ(series(*store_, b, db::metric::kValidBleu), series(*store_, a, db::metric::kValidBleu));
  const auto final_model = [&](int64_t run) { return store_->tags(run).at("final_model"); };
  EXPECT_EQ(final_model(a), "checkpoint_best by valid_bleu, update 10");
  EXPECT_EQ(final_model(b), final_model(a));
  EXPECT_EQ(store_->find_run(std::to_string(b))->final_metrics.at(db::metric::kValidBleu),
            store_->find_run(std::to_string(a))->final_metrics.at(db::metric::kValidBleu));
}

TEST(ValidBleu, ALanguageModelIsRefusedNamingTheKey) {
  const InputError e = testing::expect_input_error([] {
    check_config(
        load_config_string("model: {arch: decoder_only}\n"
                           "data: {task: synthetic}\n"
                           "train: {valid_bleu: 3}\n",
                           "lm.yaml", ""));
  });
  EXPECT_EQ(e.field(), "train.valid_bleu") << e.what();
  EXPECT_NE(std::string(e.what()).find("decoder_only"), std::string::npos) << e.what();
}

TEST(ValidBleu, SelectingOnItWithoutDecodingIsRefusedNamingTheKey) {
  const InputError e = testing::expect_input_error([] {
    check_config(load_config_string("train: {best_metric: valid_bleu}\n", "mt.yaml", ""));
  });
  EXPECT_EQ(e.field(), "train.best_metric") << e.what();
  EXPECT_NE(std::string(e.what()).find("train.valid_bleu > 0"), std::string::npos) << e.what();
  const InputError other = testing::expect_input_error(
      [] { load_config_string("train: {best_metric: test_bleu}\n", "mt.yaml", ""); });
  EXPECT_EQ(other.field(), "train.best_metric") << other.what();
}

}  // namespace test_valid_bleu
}  // namespace fathom
