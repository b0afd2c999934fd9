// Entries an earlier version prepared where a SQLite store's sweep workers kept their cache
// (<stem>.artifacts/cache, db/run_paths.h earlier_cache_root) are moved into the store's cache
// (<stem>.cache) on first need -- the same ids, no second preparation -- and checked there as any
// entry is; nothing else is ever looked for elsewhere (core/data/earlier_cache.h).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/data/prepared_corpus.h"
#include "db/run_paths.h"
#include "tests/support/temp_dir.h"
#include "tests/support/toy_corpus.h"

namespace fs = std::filesystem;

namespace test_earlier_cache {

using fathom::testing::TempDir;

void write_corpus(const TempDir& dir, int pairs) {
  std::mt19937_64 rng(17);
  fathom::testing::write_word_for_word_corpus(dir.path(), "train", pairs, rng);
}

fathom::VocabConfig small_vocab() {
  fathom::VocabConfig vocab;
  vocab.size = 40;
  return vocab;
}

fathom::PreparedCorpus prepare_in(const TempDir& dir, const std::string& cache) {
  const fathom::VocabConfig vocab = small_vocab();
  return fathom::prepare_corpus(dir.file("train.de"), dir.file("train.en"), vocab, cache);
}

// Every pair's ids, read out of the mapping.
std::vector<std::vector<int64_t>> ids_of(const fathom::PreparedCorpus& c) {
  std::vector<std::vector<int64_t>> out;
  for (size_t i = 0; i < c.train.size(); ++i) {
    std::vector<int64_t> src(static_cast<size_t>(c.train.src_len(i))),
        tgt(static_cast<size_t>(c.train.tgt_len(i)));
    c.train.copy_src(i, src.data());
    c.train.copy_tgt(i, tgt.data());
    src.insert(src.end(), tgt.begin(), tgt.end());
    out.push_back(std::move(src));
  }
  return out;
}

// The entries (folders not starting with '.') of a cache folder whose names begin with `prefix`.
int entries(const fs::path& cache, const std::string& prefix) {
  int n = 0;
  if (!fs::exists(cache)) return 0;
  for (const auto& e : fs::directory_iterator(cache))
    n += e.is_directory() && e.path().filename().string().rfind(prefix, 0) == 0 ? 1 : 0;
  return n;
}

TEST(EarlierCache, OnlyAStoresOwnCacheHasAnEarlierFolder) {
  EXPECT_EQ(fathom::db::earlier_cache_root("/lab/runs.cache"), "/lab/runs.artifacts/cache");
  EXPECT_EQ(fathom::db::earlier_cache_root("/lab/runs.cache/"), "/lab/runs.artifacts/cache");
  EXPECT_EQ(fathom::db::earlier_cache_root("lab/x/../runs.cache"), "lab/runs.artifacts/cache");
  EXPECT_EQ(fathom::db::earlier_cache_root("/lab/artifacts/cache"), "");  // --artifacts DIR
  EXPECT_EQ(fathom::db::earlier_cache_root("/tmp/fathom-cache"), "");
  EXPECT_EQ(fathom::db::earlier_cache_root("/home/me/.cache"), "");
  // The rule is store_paths' own: a SQLite store's cache has its earlier folder.
  const auto paths = fathom::db::store_paths("/lab/runs.db", "");
  EXPECT_EQ(fathom::db::earlier_cache_root(paths.cache_root),
            (fs::path(paths.artifacts_root) / "cache").string());
}

TEST(EarlierCache, AWorkersEntryIsMovedIntoTheStoresCacheNotPreparedAgain) {
  TempDir dir;
  write_corpus(dir, 300);
  const fs::path earlier = dir.file("runs.artifacts/cache"), cache = dir.file("runs.cache");
  const auto before = prepare_in(dir, earlier.string());  // as workers did until 2026-12-04
  ASSERT_FALSE(before.reused);
  const auto expected = ids_of(before);
  ASSERT_EQ(entries(earlier, "corpus-"), 1);
  ASSERT_EQ(entries(earlier, "spm-"), 1);

  const auto after = prepare_in(dir, cache.string());
  EXPECT_TRUE(after.reused) << "prepared again instead of moved";
  EXPECT_EQ(fs::path(after.entry).parent_path(), cache);
  EXPECT_EQ(ids_of(after), expected);
  EXPECT_EQ(after.vocab->size(), before.vocab->size());
  EXPECT_EQ(entries(cache, "corpus-"), 1);
  EXPECT_EQ(entries(earlier, "corpus-"), 0) << "the entry is moved, not copied";
  // The corpus holds its vocabulary; the vocabulary's own entry moves when it is asked for.
  EXPECT_EQ(entries(earlier, "spm-"), 1);
  const auto alone = fathom::prepare_corpus_vocabulary(dir.file("train.de"), dir.file("train.en"),
                                                       small_vocab(), cache.string());
  EXPECT_TRUE(alone->reused()) << "the vocabulary was trained again";
  EXPECT_EQ(entries(cache, "spm-"), 1);
  EXPECT_EQ(entries(earlier, "spm-"), 0);
}

// A damaged entry moved in is set aside and prepared again like one that was always there;
// an entry the cache has already is used, the earlier folder's left alone.
TEST(EarlierCache, AMovedEntryIsCheckedAndTheCachesOwnComesFirst) {
  TempDir dir;
  write_corpus(dir, 200);
  const fs::path earlier = dir.file("runs.artifacts/cache"), cache = dir.file("runs.cache");
  const auto first = prepare_in(dir, earlier.string());
  const auto expected = ids_of(first);
  const fs::path tokens = fs::path(first.entry) / "tokens.bin";
  {
    std::fstream f(tokens, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(6);
    f.put('\x7f');  // one id changed: its hash no longer matches
  }
  const auto again = prepare_in(dir, cache.string());
  EXPECT_FALSE(again.reused) << "a damaged entry was trusted";
  EXPECT_EQ(ids_of(again), expected);

  const auto other = prepare_in(dir, earlier.string());  // prepared there once more
  ASSERT_FALSE(other.reused);
  const auto third = prepare_in(dir, cache.string());
  EXPECT_TRUE(third.reused);
  EXPECT_EQ(third.entry, again.entry);
  EXPECT_EQ(entries(earlier, "corpus-"), 1) << "the cache's own entry comes first";
}

// Two processes needing the entry at once (threads here: the lock is flock on a file each
// opens): one moves it in under the entry's lock, the other then maps it; neither prepares.
TEST(EarlierCache, TwoAtOnceMoveItOnceAndBothMapIt) {
  TempDir dir;
  write_corpus(dir, 300);
  const fs::path earlier = dir.file("runs.artifacts/cache"), cache = dir.file("runs.cache");
  const auto expected = ids_of(prepare_in(dir, earlier.string()));
  fathom::PreparedCorpus a, b;
  std::thread first([&] { a = prepare_in(dir, cache.string()); });
  std::thread second([&] { b = prepare_in(dir, cache.string()); });
  first.join();
  second.join();
  EXPECT_TRUE(a.reused);
  EXPECT_TRUE(b.reused);
  EXPECT_EQ(a.entry, b.entry);
  EXPECT_EQ(ids_of(a), expected);
  EXPECT_EQ(ids_of(b), expected);
  EXPECT_EQ(entries(cache, "corpus-"), 1);
  EXPECT_EQ(entries(earlier, "corpus-"), 0);
}

}  // namespace test_earlier_cache
