// `fathom data prepare` as a user runs it, and a run that trains on the corpus it prepared:
// two processes preparing at once make one entry, a second call maps it, `train` maps it too,
// and a config with nothing to prepare is refused at its key.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/util/process.h"
#include "db/store.h"
#include "tests/support/fathom_cli.h"
#include "tests/support/fathom_cli_test.h"
#include "tests/support/toy_corpus.h"

namespace test_data_prepare_cli {
namespace fs = std::filesystem;
using fathom::ProgramResult;

class DataPrepareCli : public fathom::testing::FathomCliTest {
 protected:
  void SetUp() override {
    FathomCliTest::SetUp();
    if (HasFatalFailure()) return;
    // 800 pairs of a two-language toy corpus, relative to the config's folder.
    std::mt19937_64 rng(11);
    fathom::testing::write_word_for_word_corpus(dir_ / "corpus", "train", 800, rng);
    std::ofstream(dir_ / "corpus/valid.de") << "der Hund\nein Mann im Park\n";
    std::ofstream(dir_ / "corpus/valid.en") << "the dog\na man in park\n";
    std::ofstream(dir_ / "toy.yaml")
        << "name: toy\n"
           "model: {d_model: 16, heads: 2, d_ff: 32, encoder_layers: 1, decoder_layers: 1}\n"
           "data:\n"
           "  task: parallel\n"
           "  train_source: corpus/train.de\n"
           "  train_target: corpus/train.en\n"
           "  valid_source: corpus/valid.de\n"
           "  valid_target: corpus/valid.en\n"
           "  vocab: {size: 40}\n"
           "  max_tokens: 256\n"
           "train: {lr: 0.005, warmup: 2, max_updates: 4, valid_every: 4, log_every: 2}\n"
           "eval: {beam: 1}\n";
  }
  // `train CONFIG` (the store's first run) maps the prepared `entry`, as its data tag says.
  void expect_training_maps(const std::string& config, const std::string& entry) {
    const ProgramResult train = fathom({"train", config, "--no-progress"});
    ASSERT_EQ(train.exit_code, 0) << train.err;
    const auto store =
        fathom::db::Store::open((dir_ / "runs.db").string(), fathom::db::OpenMode::ReadOnly);
    const auto tags = store.tags(1);
    ASSERT_TRUE(tags.count("data"));
    EXPECT_NE(tags.at("data").find("prepared corpus: " + entry + " (mapped)"), std::string::npos)
        << tags.at("data");
  }
};

TEST_F(DataPrepareCli, TwoProcessesAtOnceMakeOneEntryThatTrainingMaps) {
  const std::string config = (dir_ / "toy.yaml").string();
  ProgramResult a, b;
  std::thread first([&] { a = fathom({"--json", "data", "prepare", config}); });
  std::thread second([&] { b = fathom({"--json", "data", "prepare", config}); });
  first.join();
  second.join();
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  const auto ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out);
  EXPECT_EQ(ja["entry"], jb["entry"]);
  EXPECT_EQ(ja["pairs"], 800);
  EXPECT_EQ(ja["bytes_per_token"], 2);
  EXPECT_NE(ja["reused"].get<bool>(), jb["reused"].get<bool>());  // one prepared, one mapped
  const std::string entry = ja["entry"];
  EXPECT_EQ(fs::path(entry).parent_path(), dir_ / "runs.cache");  // beside the store

  const ProgramResult again = fathom({"data", "prepare", config, "--no-progress"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("already prepared: 800 pairs"), std::string::npos) << again.out;

  expect_training_maps(config, entry);
}

// A decoder-only language model's text (data.task lm) is prepared the same way: one document a
// line, and the run that trains on it maps the entry.
TEST_F(DataPrepareCli, ALanguageModelsTextIsPreparedAndMappedByItsRun) {
  std::ofstream(dir_ / "lm.yaml")
      << "name: lm\n"
         "model: {arch: decoder_only, d_model: 16, heads: 2, d_ff: 32, decoder_layers: 1}\n"
         "data:\n"
         "  task: lm\n"
         "  train_text: corpus/train.en\n"
         "  valid_text: corpus/valid.en\n"
         "  lm_block: 16\n"
         "  vocab: {size: 40}\n"
         "  max_tokens: 256\n"
         "train: {lr: 0.005, warmup: 2, max_updates: 4, valid_every: 4, log_every: 2}\n";
  const std::string config = (dir_ / "lm.yaml").string();
  const ProgramResult r = fathom({"--json", "data", "prepare", config});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["pairs"], 800) << "one row a document";
  EXPECT_FALSE(j["reused"].get<bool>());
  const std::string entry = j["entry"];

  const ProgramResult text = fathom({"data", "prepare", config, "--no-progress"});
  EXPECT_NE(text.out.find("already prepared: 800 documents"), std::string::npos) << text.out;
  expect_training_maps(config, entry);
}

// A sweep's workers are handed the artifacts folder by name (FATHOM_ARTIFACTS); where it is the
// store's own, they prepare the corpus beside the store, where `fathom analyze` of their run
// then finds it -- not in a second cache it would fill again (a GPU lease's analyses spent their
// minute learning the BPE vocabulary again, 2026-12-04).
TEST_F(DataPrepareCli, ASweepsWorkersPrepareWhereTheAnalysesOfTheirRunsLook) {
  std::ofstream(dir_ / "sweep.yaml") << "name: toys\nbase: toy.yaml\nseeds: [1]\n";
  const ProgramResult sweep = fathom({"sweep", (dir_ / "sweep.yaml").string(), "--no-progress"});
  ASSERT_EQ(sweep.exit_code, 0) << sweep.out << sweep.err;
  const auto corpus_entries = [&](const fs::path& cache) {
    std::vector<std::string> entries;
    if (fs::exists(cache))
      for (const auto& e : fs::directory_iterator(cache))
        if (e.path().filename().string().rfind("corpus-", 0) == 0 && e.is_directory())
          entries.push_back(e.path().filename().string());
    return entries;
  };
  const std::vector<std::string> prepared = corpus_entries(dir_ / "runs.cache");
  ASSERT_EQ(prepared.size(), 1u) << "the worker's corpus beside the store";
  EXPECT_FALSE(fs::exists(dir_ / "runs.artifacts" / "cache"));
  {
    const auto store = fathom::db::Store::open(db(), fathom::db::OpenMode::ReadOnly);
    const auto tags = store.tags(1);
    ASSERT_TRUE(tags.count("data"));
    EXPECT_NE(tags.at("data").find((dir_ / "runs.cache" / prepared[0]).string()), std::string::npos)
        << tags.at("data");
  }
  const ProgramResult beta =
      fathom({"analyze", "beta", "1", "--checkpoint", "last", "--no-progress"});
  ASSERT_EQ(beta.exit_code, 0) << beta.err;
  EXPECT_EQ(corpus_entries(dir_ / "runs.cache"), prepared) << "mapped, not prepared again";
  EXPECT_EQ(beta.err.find("waiting for another process"), std::string::npos) << beta.err;
}

TEST_F(DataPrepareCli, ASyntheticTaskHasNothingToPrepare) {
  std::ofstream(dir_ / "tiny.yaml") << fathom::testing::tiny_config_yaml("tiny", "{}");
  const ProgramResult r = fathom({"data", "prepare", (dir_ / "tiny.yaml").string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("data.task"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("tiny.yaml"), std::string::npos) << r.err;  // the file, and its line
}

}  // namespace test_data_prepare_cli
