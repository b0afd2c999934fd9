// `fathom data cache` as a user runs it: every entry of the store's cache with its size (the
// bytes of its files, counted here apart) and state; a corpus whose text changed or went, and
// an earlier folder's copy of an entry the cache has, are what `--prune` removes -- and only
// those: a current corpus is still mapped afterwards, not prepared again.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "base/util/process.h"
#include "tests/support/fathom_cli_test.h"
#include "tests/support/toy_corpus.h"

namespace test_data_cache_cli {
namespace fs = std::filesystem;
using fathom::ProgramResult;

class DataCacheCli : public fathom::testing::FathomCliTest {
 protected:
  // corpus NAME/train.{de,en} and NAME.yaml training on it, `pairs` pairs.
  std::string corpus_config(const std::string& name, int pairs, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    fathom::testing::write_word_for_word_corpus(dir_ / name, "train", pairs, rng);
    const fs::path config = dir_ / (name + ".yaml");
    std::ofstream(config) << "name: " << name
                          << "\n"
                             "model: {d_model: 16, heads: 2, d_ff: 32, encoder_layers: 1, "
                             "decoder_layers: 1}\n"
                             "data:\n"
                             "  task: parallel\n"
                             "  train_source: "
                          << (dir_ / name / "train.de").string()
                          << "\n  train_target: " << (dir_ / name / "train.en").string()
                          << "\n  vocab: {size: 40}\n";
    return config.string();
  }
  // `data prepare CONFIG --json`'s output.
  nlohmann::json prepare(const std::string& config) {
    const ProgramResult r = fathom({"--json", "data", "prepare", config});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out);
  }
  // `data cache [--prune] --json`, its entries by folder.
  nlohmann::json cache(bool prune, std::map<std::string, nlohmann::json>& by_folder) {
    std::vector<std::string> args{"--json", "data", "cache"};
    if (prune) args.push_back("--prune");
    const ProgramResult r = fathom(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const auto out = nlohmann::json::parse(r.out);
    by_folder.clear();
    for (const auto& e : out["entries"]) by_folder[e["folder"]] = e;
    return out;
  }
};

std::uint64_t bytes_under(const fs::path& folder) {
  std::uint64_t n = 0;
  for (const auto& f : fs::recursive_directory_iterator(folder))
    if (f.is_regular_file()) n += f.file_size();
  return n;
}

TEST_F(DataCacheCli, ListsEveryEntryAndPrunesOnlyWhatNoRunCanUse) {
  const std::string a = corpus_config("a", 300, 1), b = corpus_config("b", 200, 2);
  const std::string entry_a = prepare(a)["entry"], entry_b = prepare(b)["entry"];
  std::map<std::string, nlohmann::json> by_folder;
  auto out = cache(false, by_folder);
  EXPECT_EQ(out["cache"], (dir_ / "runs.cache").string());
  ASSERT_EQ(by_folder.size(), 4u) << out.dump(2);  // two corpora, two vocabularies
  EXPECT_EQ(by_folder[entry_a]["state"], "current");
  EXPECT_EQ(by_folder[entry_a]["pairs"], 300);
  EXPECT_EQ(by_folder[entry_a]["source"], (dir_ / "a/train.de").string());
  EXPECT_EQ(by_folder[entry_a]["bytes"], bytes_under(entry_a));
  EXPECT_EQ(out["prunable_bytes"], 0);

  // a's text changes (a new key: its entry is stale); b's copy sits in the earlier folder.
  std::ofstream(dir_ / "a/train.de", std::ios::app) << "der Hund\n";
  std::ofstream(dir_ / "a/train.en", std::ios::app) << "the dog\n";
  const fs::path earlier_copy = dir_ / "runs.artifacts/cache" / fs::path(entry_b).filename();
  fs::create_directories(earlier_copy.parent_path());
  fs::copy(entry_b, earlier_copy, fs::copy_options::recursive);
  out = cache(false, by_folder);
  EXPECT_EQ(by_folder[entry_a]["state"], "text changed");
  EXPECT_EQ(by_folder[entry_b]["state"], "current");
  EXPECT_EQ(by_folder[earlier_copy.string()]["state"], "also in the cache");
  EXPECT_TRUE(by_folder[earlier_copy.string()]["earlier_folder"].get<bool>());
  EXPECT_EQ(out["prunable_bytes"], bytes_under(entry_a) + bytes_under(earlier_copy));

  const std::uint64_t freed = out["prunable_bytes"];
  out = cache(true, by_folder);
  EXPECT_EQ(out["freed_bytes"], freed);
  EXPECT_FALSE(fs::exists(entry_a));
  EXPECT_FALSE(fs::exists(earlier_copy));
  EXPECT_TRUE(fs::exists(entry_b));
  int vocabularies = 0;
  for (const auto& item : fs::directory_iterator(dir_ / "runs.cache"))
    vocabularies += item.path().filename().string().rfind("spm-", 0) == 0 ? 1 : 0;
  EXPECT_EQ(vocabularies, 2) << "a vocabulary is never pruned";
  const auto again = prepare(b);
  EXPECT_TRUE(again["reused"].get<bool>()) << "a current corpus was pruned";

  fs::remove(dir_ / "b/train.en");  // b's text gone
  cache(false, by_folder);
  EXPECT_EQ(by_folder[entry_b]["state"], "text gone");
}

// Human output: the entries, the total and what --prune would free, said in one line.
TEST_F(DataCacheCli, SaysWhatPruningWouldFree) {
  const std::string a = corpus_config("a", 100, 3);
  const std::string entry = prepare(a)["entry"];
  ProgramResult r = fathom({"data", "cache"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(fs::path(entry).filename().string()), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("every one can still be used"), std::string::npos) << r.out;
  fs::remove(dir_ / "a/train.de");
  r = fathom({"data", "cache"});
  EXPECT_NE(r.out.find("1 no run can use again"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fathom data cache --prune"), std::string::npos) << r.out;
}

// A text that is there but cannot be read as a corpus now (here a FIFO in its place; as root,
// permissions cannot be taken away) is not judged: kept by --prune.
TEST_F(DataCacheCli, KeepsAnEntryWhoseTextCannotBeReadNow) {
  const std::string entry = prepare(corpus_config("a", 100, 5))["entry"];
  fs::remove(dir_ / "a/train.en");
  ASSERT_EQ(::mkfifo((dir_ / "a/train.en").c_str(), 0600), 0);
  std::map<std::string, nlohmann::json> by_folder;
  const auto out = cache(true, by_folder);
  EXPECT_EQ(by_folder[entry]["state"], "text unreadable") << out.dump(2);
  EXPECT_EQ(out["freed_bytes"], 0);
  EXPECT_TRUE(fs::exists(entry));
}

// A stopped preparation's chunks (.corpus-<hash>.partial) are listed with their size: kept
// while the next preparation may resume from them; pruned where their entry is whole (a process
// killed before it removed them) or they lie in the earlier folder, where nothing resumes.
TEST_F(DataCacheCli, ListsStoppedPreparationsAndPrunesOnlyTheDeadOnes) {
  const std::string entry = prepare(corpus_config("a", 100, 4))["entry"];
  const std::string key = fs::path(entry).filename().string();
  const auto partial = [&](const fs::path& folder, const std::string& of) {
    const fs::path p = folder / ("." + of + ".partial");
    fs::create_directories(p);
    std::ofstream(p / "chunk-000000.tokens") << std::string(1000, 'x');
    return p.string();
  };
  const std::string stopped =
      partial(dir_ / "runs.cache", "corpus-0123456789abcdef0123456789abcdef");
  const std::string left = partial(dir_ / "runs.cache", key);
  const std::string earlier =
      partial(dir_ / "runs.artifacts/cache", "corpus-fedcba9876543210fedcba9876543210");
  std::map<std::string, nlohmann::json> by_folder;
  const auto out = cache(false, by_folder);
  EXPECT_EQ(by_folder[stopped]["state"], "stopped") << out.dump(2);
  EXPECT_EQ(by_folder[stopped]["kind"], "partial");
  EXPECT_EQ(by_folder[stopped]["bytes"], 1000);
  EXPECT_EQ(by_folder[left]["state"], "entry whole");
  EXPECT_EQ(by_folder[earlier]["state"], "stopped earlier");
  EXPECT_EQ(out["prunable_bytes"], 2000);
  cache(true, by_folder);
  EXPECT_TRUE(fs::exists(stopped));
  EXPECT_FALSE(fs::exists(left));
  EXPECT_FALSE(fs::exists(earlier));
  EXPECT_TRUE(fs::exists(entry));
}

// A preparation's output folder (.corpus-<hash>.tmp-<suffix>) is in use while a process holds
// the key's lock: kept then; once nobody holds it, the process that wrote it was killed before
// renaming it into place, and --prune removes it. (flock: a lock taken here is held against the
// fathom process, another open file description.)
TEST_F(DataCacheCli, KeepsAPreparationInProgressAndPrunesOneAKillLeft) {
  const fs::path cache_dir = dir_ / "runs.cache";
  fs::create_directories(cache_dir);
  const auto temporary = [&](const std::string& key) {
    const fs::path p = cache_dir / ("." + key + ".tmp-4242-abc");
    fs::create_directories(p / "chunks");
    std::ofstream(p / "chunks" / "chunk-000000.tokens") << std::string(700, 'x');
    return p.string();
  };
  const std::string live_key = "corpus-00112233445566778899aabbccddeeff";
  const std::string live = temporary(live_key);
  const std::string killed = temporary("corpus-ffeeddccbbaa99887766554433221100");
  const int lock = ::open((cache_dir / (live_key + ".lock")).c_str(), O_CREAT | O_RDWR, 0644);
  ASSERT_GE(lock, 0);
  ASSERT_EQ(::flock(lock, LOCK_EX | LOCK_NB), 0);
  std::map<std::string, nlohmann::json> by_folder;
  const auto out = cache(false, by_folder);
  EXPECT_EQ(by_folder[live]["kind"], "temporary") << out.dump(2);
  EXPECT_EQ(by_folder[live]["state"], "preparing");
  EXPECT_EQ(by_folder[killed]["state"], "killed while preparing");
  EXPECT_EQ(by_folder[killed]["bytes"], 700);
  EXPECT_EQ(out["prunable_bytes"], 700);
  cache(true, by_folder);
  EXPECT_TRUE(fs::exists(live));
  EXPECT_FALSE(fs::exists(killed));
  // Its process gone (the lock released), the other one is a kill's leftover too.
  ::close(lock);
  EXPECT_EQ(cache(false, by_folder)["prunable_bytes"], 700);
  EXPECT_EQ(by_folder[live]["state"], "killed while preparing");
}

// A vocabulary is learnt in ".<key>.tmp-<suffix>" (its training text, up to 2M lines, and the
// model) while its learner holds an flock on that folder: held, the folder is "learning" and
// kept; a killed learner's is prunable. Other dot-folders are not the cache's to list.
TEST_F(DataCacheCli, KeepsAVocabularyBeingLearntAndPrunesOneAKillLeft) {
  const fs::path cache_dir = dir_ / "runs.cache";
  const auto temporary = [&](const std::string& name) {
    const fs::path p = cache_dir / name;
    fs::create_directories(p);
    std::ofstream(p / "train.txt") << std::string(900, 'w');
    return p.string();
  };
  const std::string live = temporary(".spm-bpe-40-0011223344556677.tmp-77-aa");
  const std::string killed = temporary(".spm-bpe-40-8899aabbccddeeff.tmp-78-bb");
  const std::string stranger = temporary(".notes.tmp-1");
  const int lock = ::open(live.c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(lock, 0);
  ASSERT_EQ(::flock(lock, LOCK_EX | LOCK_NB), 0);
  std::map<std::string, nlohmann::json> by_folder;
  const auto out = cache(false, by_folder);
  EXPECT_EQ(by_folder[live]["kind"], "temporary") << out.dump(2);
  EXPECT_EQ(by_folder[live]["state"], "learning");
  EXPECT_EQ(by_folder[killed]["state"], "killed while learning");
  EXPECT_EQ(by_folder[killed]["bytes"], 900);
  EXPECT_EQ(by_folder.count(stranger), 0u);
  EXPECT_EQ(out["prunable_bytes"], 900);
  cache(true, by_folder);
  EXPECT_TRUE(fs::exists(live));
  EXPECT_FALSE(fs::exists(killed));
  EXPECT_TRUE(fs::exists(stranger));
  ::close(lock);
  EXPECT_EQ(cache(false, by_folder)["prunable_bytes"], 900);
  EXPECT_EQ(by_folder[live]["state"], "killed while learning");
}

}  // namespace test_data_cache_cli
