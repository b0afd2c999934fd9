// Language-model data and training (issue 39 item 2; core/data/lm_text.h): documents and
// blocks worked by hand, the bytes bits per byte divide by, where a sample's prompt ends, a
// synthetic pair read as one sequence, text files read with their bad input refused, and
// decoder-only runs on both -- bits per byte checked against a sum of log-probabilities
// computed here from the kept model.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/config/config_io.h"
#include "core/data/lm_text.h"
#include "core/data/vocab.h"
#include "core/decode/lm_continue.h"
#include "core/train/checkpoint.h"
#include "db/metric_names.h"
#include "tests/support/config_test_helpers.h"
#include "tests/support/input_error.h"
#include "tests/support/trainer_test_fixture.h"

namespace fathom {
namespace test_lm_data {
using testing::expect_input_error;
using testing::tiny_config;
using testing::TrainerTest;

using Ids = std::vector<int64_t>;
constexpr int64_t E = kEosId;

// Documents (5 6 7), (8), (9 10). One example each, eos-ended; or joined, each ended by eos,
// 5 6 7 E 8 E 9 10 E, cut into blocks of 4: (5 6 7 E) (8 E 9 10) (E).
TEST(LanguageModelExamples, DocumentsAndBlocksWorkedByHand) {
  const std::vector<Ids> documents{{5, 6, 7}, {8}, {9, 10}};
  const auto whole = language_model_examples(documents, 0);
  ASSERT_EQ(whole.size(), 3u);
  EXPECT_EQ(whole[0].tgt, (Ids{5, 6, 7, E}));
  EXPECT_EQ(whole[1].tgt, (Ids{8, E}));
  EXPECT_EQ(whole[2].tgt, (Ids{9, 10, E}));
  for (const auto& e : whole) EXPECT_TRUE(e.src.empty());
  const auto blocks = language_model_examples(documents, 4);
  ASSERT_EQ(blocks.size(), 3u);
  EXPECT_EQ(blocks[0].tgt, (Ids{5, 6, 7, E}));
  EXPECT_EQ(blocks[1].tgt, (Ids{8, E, 9, 10}));
  EXPECT_EQ(blocks[2].tgt, (Ids{E}));
}

// "ab" is 2 bytes, "\u00fc" 2 (UTF-8), "" none; each document has its newline: 3 + 3 + 1 = 7.
// 14 ln 2 nats over 7 bytes is 2 bits per byte.
TEST(LanguageModelExamples, BytesAndBitsPerByteWorkedByHand) {
  EXPECT_EQ(text_bytes({"ab", "\xc3\xbc", ""}), 7);
  EXPECT_NEAR(bits_per_byte(14 * std::log(2.0), 7), 2.0, 1e-12);
}

// A sample's prompt ends after the first eos inside the sequence (a synthetic pair's source),
// else at the middle of its body, at least one token.
TEST(LanguageModelExamples, WhereAPromptEnds) {
  EXPECT_EQ(prompt_length({4, 5, E, 6, 7, E}), 3u);
  EXPECT_EQ(prompt_length({4, 5, 6, 7, E}), 2u);
  EXPECT_EQ(prompt_length({4, E}), 1u);
}

// A synthetic pair read as a language model: source, eos, target, eos; its text joined.
TEST(LanguageModelExamples, ASyntheticPairIsOneSequence) {
  Dataset pairs;
  pairs.valid = {make_example({4, 5}, {6})};
  pairs.valid_source = {"a0 a1"};
  pairs.valid_target = {"b2"};
  const Dataset lm = as_language_model(pairs);
  ASSERT_EQ(lm.valid.size(), 1u);
  EXPECT_TRUE(lm.valid[0].src.empty());
  EXPECT_EQ(lm.valid[0].tgt, (Ids{4, 5, E, 6, E}));
  EXPECT_EQ(lm.valid_target, (std::vector<std::string>{"a0 a1 b2"}));
  EXPECT_TRUE(lm.valid_source.empty());
  EXPECT_EQ(lm.valid_bytes, 0);  // symbols, not text: no bits per byte
}

class LanguageModelText : public testing::ConfigFiles {
 protected:
  DataConfig text_config() {
    DataConfig d;
    d.task = "lm";
    d.vocab.type = "bpe";
    d.vocab.size = 40;
    d.train_text = write("train.txt", train_text());
    d.valid_text = write("valid.txt", "the cat sat\non the mat\n");
    d.test_text = write("test.txt", "a dog\n");
    return d;
  }
  static std::string train_text() {
    std::string text;
    for (int i = 0; i < 40; ++i) text += "the cat sat on the mat and the dog sat on the log\n";
    return text;
  }
};

// Lines are documents; the byte counts are the files' sizes (each line and its newline).
TEST_F(LanguageModelText, ReadsDocumentsAndCountsTheirBytes) {
  const DataConfig cfg = text_config();
  const Dataset d = load_dataset(cfg, (dir_ / "cache").string(), "");
  EXPECT_EQ(d.train.size(), 40u);
  EXPECT_EQ(d.valid.size(), 2u);
  EXPECT_EQ(d.test.size(), 1u);
  EXPECT_EQ(d.valid_bytes, 23);  // "the cat sat\n" 12 + "on the mat\n" 11
  EXPECT_EQ(d.test_bytes, 6);
  EXPECT_EQ(d.valid_target, (std::vector<std::string>{"the cat sat", "on the mat"}));
  for (const auto& e : d.valid) {
    EXPECT_TRUE(e.src.empty());
    EXPECT_EQ(e.tgt.back(), E);
  }
  EXPECT_EQ(d.vocab->decode(Ids(d.valid[0].tgt.begin(), d.valid[0].tgt.end() - 1)), "the cat sat");
}

// An empty text file and one that is not UTF-8 are refused naming the file (and the line).
TEST_F(LanguageModelText, EmptyOrNonUtf8TextIsRefused) {
  DataConfig cfg = text_config();
  cfg.valid_text = write("empty.txt", "");
  const InputError empty = expect_input_error([&] { load_dataset(cfg, "", ""); });
  EXPECT_EQ(empty.file(), cfg.valid_text);
  cfg = text_config();
  cfg.test_text = write("latin1.txt", "fine\nna\xefve\n");
  const InputError latin1 = expect_input_error([&] { load_dataset(cfg, "", ""); });
  EXPECT_EQ(latin1.file(), cfg.test_text);
  EXPECT_EQ(latin1.line(), 2);
}

// What a config of lm text must say, and what a decoder-only config may not.
TEST_F(LanguageModelText, ConfigsThatCannotTrainAreRefused) {
  const std::string train = write("t.txt", "some text\n");
  auto field_of = [](const std::vector<std::string>& lines) {
    return expect_input_error(
               [&] { check_config(load_config_string(testing::yaml_lines(lines), "lm.yaml", "")); })
        .field();
  };
  EXPECT_EQ(field_of({"data:", "  task: lm", "  train_text: " + train}), "data.task");
  EXPECT_EQ(field_of({"model:", "  arch: decoder_only", "data:", "  task: lm"}), "data.train_text");
  EXPECT_EQ(field_of({"model:", "  arch: decoder_only", "data:", "  task: lm",
                      "  train_text: " + train, "  train_source: " + train}),
            "data.train_source");
  EXPECT_EQ(field_of({"model:", "  arch: decoder_only", "data:", "  task: parallel",
                      "  train_source: " + train, "  train_target: " + train}),
            "data.task");
  EXPECT_EQ(field_of({"model:", "  arch: decoder_only", "data:", "  task: lm",
                      "  train_text: " + dir_.string() + "/missing.txt"}),
            "data.train_text");
  // Written out whole (empty source paths and all, as a run's stored config) it reads back.
  const RunConfig valid =
      load_config_string(testing::yaml_lines({"model:", "  arch: decoder_only",
                                              "data:", "  task: lm", "  train_text: " + train}),
                         "lm.yaml", "");
  check_config(valid);
  check_config(load_config_string(config_to_yaml(valid), "run 1 config", ""));
}

RunConfig decoder_only(RunConfig c) {
  c.model.arch = "decoder_only";
  c.model.decoder_layers = 2;
  return c;
}

// A decoder-only model trains on the synthetic task read as one sequence: it finishes, its
// loss falls, no BLEU is computed, and each validation keeps samples that continue the source.
// With sigma-Reparam on and the training probes recording the one stack.
TEST_F(TrainerTest, DecoderOnlyTrainsOnTheSyntheticTaskAsOneSequence) {
  RunConfig config = decoder_only(tiny_config());
  config.train.max_updates = 30;
  config.train.probe_every = 10;
  config.train.probe_sentences = 4;
  config.model.sigma_reparam = true;
  const int64_t run = new_run(config);
  const TrainOutcome outcome = train(config, run);
  ASSERT_EQ(outcome.status, "finished") << outcome.reason;
  const auto loss = testing::series(*store_, run, db::metric::kTrainLoss);
  EXPECT_LT(loss.rbegin()->second, loss.begin()->second);
  EXPECT_FALSE(outcome.final_metrics.count(db::metric::kTestBleu));
  EXPECT_TRUE(outcome.final_metrics.count(db::metric::kTestPpl));
  EXPECT_FALSE(outcome.final_metrics.count(db::metric::kTestBpb));  // not text
  const auto tags = store_->tags(run);
  const auto samples = nlohmann::json::parse(tags.at(db::kSamplesTagPrefix + "30"));
  ASSERT_EQ(samples.size(), 3u);
  // The prompt is the source: a0..a7 symbols only, and the reference the target (b symbols).
  EXPECT_EQ(samples[0]["source"].get<std::string>().find('b'), std::string::npos);
  EXPECT_NE(samples[0]["reference"].get<std::string>().find('b'), std::string::npos);
  const auto probes = store_->probe_names(run);
  for (const std::string name : {"attn.max_logit", "stream.rms", "update.ratio"})
    EXPECT_NE(std::find(probes.begin(), probes.end(), name), probes.end()) << name;
  const auto series = store_->probe_series(run, "stream.rms");
  ASSERT_FALSE(series.positions.empty());
  for (const auto& label : series.positions) EXPECT_EQ(label.rfind("dec.", 0), 0u) << label;
}

// On text, bits per byte = the summed NLL of the validation documents (nats) over ln 2 and their
// bytes: recomputed here from the kept best model with log-softmax, token by token.
TEST_F(TrainerTest, DecoderOnlyBitsPerByteOnText) {
  RunConfig config = decoder_only(tiny_config());
  config.data.task = "lm";
  config.data.vocab.size = 40;
  const std::string valid_text = "the cat sat\non the mat\n";
  std::string train_text;
  for (int i = 0; i < 40; ++i) train_text += "the cat sat on the mat and the dog sat on the log\n";
  testing::TempDir files;
  config.data.train_text = files.write("train.txt", train_text);
  config.data.valid_text = files.write("valid.txt", valid_text);
  config.train.max_updates = 20;
  check_config(config);
  const int64_t run = new_run(config);
  const TrainOutcome outcome = train(config, run);
  ASSERT_EQ(outcome.status, "finished") << outcome.reason;
  ASSERT_TRUE(outcome.final_metrics.count(db::metric::kValidBpb));

  const Dataset data = load_run_dataset(config, (dir_ / "cache").string(), "");
  Transformer model = build_model(config, data.vocab->size(), 1);
  load_checkpoint(recorded(run, "checkpoint_best"), *model, nullptr, nullptr);
  model->eval();
  torch::NoGradGuard no_grad;
  double nats = 0;
  for (const std::string line : {"the cat sat", "on the mat"}) {
    Ids ids = data.vocab->encode(line);
    ids.push_back(E);
    Ids input{kBosId};
    input.insert(input.end(), ids.begin(), ids.end() - 1);
    const torch::Tensor logp = torch::log_softmax(
        model->forward(torch::Tensor(), torch::tensor(input).view({1, -1}))[0], -1);
    for (size_t t = 0; t < ids.size(); ++t) nats -= logp[t][ids[t]].item<double>();
  }
  const double bytes = static_cast<double>(valid_text.size());  // 23: both newlines counted
  EXPECT_NEAR(outcome.final_metrics.at(db::metric::kValidBpb), nats / (std::log(2.0) * bytes),
              1e-4);
}

}  // namespace test_lm_data
}  // namespace fathom
