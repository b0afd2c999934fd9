// Prepared corpora (core/data/prepared_corpus.h) and the flat pairs they map
// (core/data/token_pairs.h): the ids are the vocabulary's own encoding of each line, the batches
// are those of the text path, and every way the cache can go wrong -- a changed corpus, a
// truncated or damaged shard, a stop half-way, processes preparing at once, a cache that cannot
// be written, a FIFO for a corpus -- ends in the right corpus or a clear error.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "base/util/error.h"
#include "base/util/file_write.h"
#include "core/data/batch.h"
#include "core/data/dataset.h"
#include "core/data/prepared_corpus.h"
#include "core/data/test_references.h"
#include "core/data/text_reader.h"
#include "core/data/vocab.h"
#include "core/data/vocab_cache.h"
#include "core/train/stop_request.h"
#include "tests/support/input_error.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using namespace fathom;

namespace test_prepared_corpus {

using fathom::testing::expect_input_error;
using fathom::testing::TempDir;

void write_file(const std::string& path, const std::string& bytes) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

// `pairs` lines of a small two-language corpus, deterministic from the seed.
void write_corpus(const TempDir& dir, int pairs, std::uint64_t seed = 5) {
  const std::vector<std::string> w_de = {"der", "Hund", "läuft", "schnell", "im",    "Park",
                                         "ein", "Mann", "sitzt", "auf",     "einer", "Bank"};
  const std::vector<std::string> w_en = {"the", "dog", "runs", "fast", "in", "park",
                                         "a",   "man", "sits", "on",   "a",  "bench"};
  std::mt19937_64 rng(seed);
  std::string de, en;
  for (int i = 0; i < pairs; ++i) {
    const int n = 1 + static_cast<int>(rng() % 9);
    std::string a, b;
    for (int k = 0; k < n; ++k) {
      const size_t w = rng() % w_de.size();
      a += (k ? " " : "") + w_de[w];
      b += (k ? " " : "") + w_en[w];
    }
    de += a + "\n";
    en += (i % 97 == 5 ? "" : b) + "\n";  // a few pairs with an empty target side
  }
  write_file(dir.file("train.de"), de);
  write_file(dir.file("train.en"), en);
}

VocabConfig small_vocab() {
  VocabConfig v;
  v.size = 60;
  return v;
}

PreparedCorpus prepare(const TempDir& dir, PrepareOptions options = {}) {
  return prepare_corpus(dir.file("train.de"), dir.file("train.en"), small_vocab(),
                        dir.file("cache"), options);
}

// Every pair of the corpus is the vocabulary's encoding of its two lines, each ending in eos.
void expect_ids_of_the_text(const TempDir& dir, const PreparedCorpus& c) {
  const ParallelText text = read_parallel_text(dir.file("train.de"), dir.file("train.en"));
  ASSERT_EQ(c.train.size(), text.source.size());
  for (size_t i = 0; i < text.source.size(); ++i) {
    auto src = c.vocab->encode(text.source[i]), tgt = c.vocab->encode(text.target[i]);
    src.push_back(kEosId);
    tgt.push_back(kEosId);
    const Example e = c.train[i];
    ASSERT_EQ(e.src, src) << "pair " << i;
    ASSERT_EQ(e.tgt, tgt) << "pair " << i;
  }
}

fs::path only_entry(const TempDir& dir) {
  std::vector<fs::path> entries;
  for (const auto& e : fs::directory_iterator(dir.file("cache")))
    if (e.is_directory() && e.path().filename().string().rfind("corpus-", 0) == 0)
      entries.push_back(e.path());
  EXPECT_EQ(entries.size(), 1u);
  return entries.empty() ? fs::path() : entries.front();
}

TEST(TokenPairs, KeepEachSideAndFilterWithoutCopying) {
  const std::vector<Example> ex = {make_example({5, 6}, {7}), make_example({8, 9, 10, 11}, {12}),
                                   Example{{}, {13, 14, kEosId}}};  // a language model's example
  const TokenPairs pairs = TokenPairs::from_examples(ex);
  ASSERT_EQ(pairs.size(), 3u);
  EXPECT_EQ(pairs.src_len(1), 5);  // four ids and eos
  EXPECT_EQ(pairs.tgt_len(0), 2);
  EXPECT_EQ(pairs.src_len(2), 0);
  EXPECT_EQ(pairs[1].src, (std::vector<std::int64_t>{8, 9, 10, 11, kEosId}));
  EXPECT_EQ(pairs[2].tgt, (std::vector<std::int64_t>{13, 14, kEosId}));
  EXPECT_EQ(pairs.stored_tokens(), 3u + 2 + 5 + 2 + 0 + 3);
  // max_len counts ids without eos, as drop_long_examples: 4 source ids > 3.
  size_t dropped = 9;
  const TokenPairs kept = pairs.without_longer_than(3, &dropped);
  EXPECT_EQ(dropped, 1u);
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[1].tgt, ex[2].tgt);  // row 1 of the kept rows is pair 2
  std::vector<Example> by_vector = ex;
  EXPECT_EQ(drop_long_examples(by_vector, 3), 1u);
  EXPECT_EQ(kept.to_examples()[0].src, by_vector[0].src);
  EXPECT_EQ(pairs.without_longer_than(0, &dropped).size(), 3u);
  EXPECT_EQ(dropped, 0u);
}

TEST(PreparedCorpus, HoldsTheVocabularysIdsOfEveryLineInTwoBytes) {
  TempDir dir;
  write_corpus(dir, 500);
  const PreparedCorpus c = prepare(dir);
  EXPECT_FALSE(c.reused);
  EXPECT_EQ(c.train.width(), 2);    // 60 ids fit in 16 bits
  EXPECT_EQ(c.one_side_empty, 6u);  // lines 5, 102, 199, 296, 393, 490
  expect_ids_of_the_text(dir, c);
  // The files: 2 bytes an id, 16 bytes a pair of index.
  const fs::path entry = only_entry(dir);
  EXPECT_EQ(fs::file_size(entry / "tokens.bin"), 2 * c.train.stored_tokens());
  EXPECT_EQ(fs::file_size(entry / "index.bin"), 16u * 500);
  EXPECT_FALSE(
      fs::exists(dir.file("cache") / fs::path("." + entry.filename().string() + ".partial")));

  const PreparedCorpus again = prepare(dir);
  EXPECT_TRUE(again.reused);
  EXPECT_EQ(again.entry, c.entry);
  expect_ids_of_the_text(dir, again);
}

// The vocabulary trained from the streamed text is the one train_or_load_sentencepiece trains
// from the lines held whole (same lines picked, same settings): every line encodes alike, so
// runs started before corpora were prepared resume with the same ids.
TEST(PreparedCorpus, StreamsTheVocabularyTheTextPathTrains) {
  TempDir dir;
  write_corpus(dir, 900, 21);
  const PreparedCorpus c = prepare(dir);
  const ParallelText text = read_parallel_text(dir.file("train.de"), dir.file("train.en"));
  const auto whole =
      train_or_load_sentencepiece(text.source, text.target, small_vocab(), dir.file("other-cache"));
  ASSERT_EQ(whole->size(), c.vocab->size());
  for (std::int64_t id = 0; id < whole->size(); ++id)
    ASSERT_EQ(whole->piece(id), c.vocab->piece(id)) << id;
  for (const auto* side : {&text.source, &text.target})
    for (const auto& line : *side) ASSERT_EQ(whole->encode(line), c.vocab->encode(line)) << line;
}

// Below the cap of 2M lines every non-empty line is written, in the order offered.
TEST(TrainingTextWriter, OffersEveryNonEmptyLineBelowTheCap) {
  TempDir dir;
  TrainingTextWriter out(dir.file("t.txt"), 3);
  for (const std::string line : {"a", "", "b", "c", ""}) out.offer(line);
  EXPECT_EQ(out.close(), 3u);
  std::ifstream in(dir.file("t.txt"));
  std::string all((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(all, "a\nb\nc\n");
}

// The batches of a prepared corpus are the batches of the same pairs held as Examples (what
// the loader gave before corpora were prepared), in every epoch's order.
TEST(PreparedCorpus, GivesTheBatchesOfTheTextPath) {
  TempDir dir;
  write_corpus(dir, 700);
  const PreparedCorpus c = prepare(dir);
  const std::vector<Example> examples = c.train.to_examples();
  const BatchPlan from_map = plan_batches(c.train, 96), from_vector = plan_batches(examples, 96);
  ASSERT_GT(from_map.size(), 20u);
  EXPECT_EQ(from_map.all(), from_vector.all());
  for (const auto& ids : epoch_batches(from_map, 3, 1)) {
    const Batch a = collate(c.train, ids), b = collate(examples, ids);
    ASSERT_TRUE(torch::equal(a.src, b.src));
    ASSERT_TRUE(torch::equal(a.tgt_in, b.tgt_in));
    ASSERT_TRUE(torch::equal(a.tgt_out, b.tgt_out));
    ASSERT_EQ(a.tgt_tokens, b.tgt_tokens);
  }
}

TEST(PreparedCorpus, AChangedCorpusIsPreparedAgain) {
  TempDir dir;
  write_corpus(dir, 300);
  const PreparedCorpus first = prepare(dir);
  std::ofstream(dir.file("train.de"), std::ios::app) << "der Hund\n";
  std::ofstream(dir.file("train.en"), std::ios::app) << "the dog\n";
  const PreparedCorpus second = prepare(dir);
  EXPECT_FALSE(second.reused);
  EXPECT_NE(second.entry, first.entry);
  EXPECT_EQ(second.train.size(), 301u);
  expect_ids_of_the_text(dir, second);

  {  // one byte changed in place, the size kept: the key remembered for the file must not serve
    std::fstream f(dir.file("train.en"), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(0);
    f.put(static_cast<char>(f.peek() == 'a' ? 'b' : 'a'));
  }
  const PreparedCorpus third = prepare(dir);
  EXPECT_FALSE(third.reused);
  EXPECT_NE(third.entry, second.entry);
  expect_ids_of_the_text(dir, third);
  EXPECT_TRUE(prepare(dir).reused);
}

TEST(PreparedCorpus, ATruncatedOrDamagedShardIsPreparedAgain) {
  TempDir dir;
  write_corpus(dir, 400);
  const fs::path entry = fs::path(prepare(dir).entry);
  fs::resize_file(entry / "tokens.bin", fs::file_size(entry / "tokens.bin") - 2);
  PreparedCorpus c = prepare(dir);
  EXPECT_FALSE(c.reused);
  expect_ids_of_the_text(dir, c);

  {  // one id changed in place: the size is right, the hash is not
    std::fstream f(entry / "tokens.bin", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(10);
    f.put('\x07');
  }
  c = prepare(dir);
  EXPECT_FALSE(c.reused);
  expect_ids_of_the_text(dir, c);
  fs::remove(entry / "index.bin");
  c = prepare(dir);
  EXPECT_FALSE(c.reused);
  expect_ids_of_the_text(dir, c);
}

// A stop between chunks keeps the chunks done; the next preparation encodes only the rest and
// gives the same corpus as one that was never stopped.
TEST(PreparedCorpus, AStoppedPreparationResumesFromItsChunks) {
  TempDir dir;
  write_corpus(dir, 1000);
  std::atomic<bool> stop{false};
  PrepareOptions options;
  options.chunk_pairs = 64;  // 16 chunks
  options.stop = &stop;
  // Stop once the vocabulary exists and some chunks are written: a thread watches the folder.
  std::thread stopper([&] {
    for (int i = 0; i < 20000 && !stop; ++i) {
      // The preparation renames and removes folders under the walk: every step's error is
      // ended here (a range-for's increment throws it, which terminated the test once in CI).
      std::error_code ec;
      for (fs::recursive_directory_iterator it(dir.file("cache"), ec), end; !ec && it != end;
           it.increment(ec))
        if (it->path().filename() == "chunk-000003.lens") stop = true;
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  });
  bool stopped = false;
  try {
    prepare(dir, options);
  } catch (const StopRequested& e) {
    stopped = true;
    EXPECT_STREQ(e.what(), "preparing the corpus");
  }
  stopper.join();
  if (!stopped) GTEST_SKIP() << "the preparation ended before the stop reached it";
  stop = false;
  const PreparedCorpus c = prepare(dir, options);
  EXPECT_FALSE(c.reused);
  EXPECT_GE(c.resumed_pairs, 4u * 64);  // chunks 0-3 at least
  EXPECT_LT(c.resumed_pairs, 1000u);
  EXPECT_EQ(c.resumed_pairs % 64, 0u);
  expect_ids_of_the_text(dir, c);
}

// Processes (here threads, each with its own open lock file) that need one corpus at once:
// exactly one prepares it, the others map its result.
TEST(PreparedCorpus, ConcurrentPreparersPrepareOnce) {
  TempDir dir;
  write_corpus(dir, 600);
  std::vector<PreparedCorpus> got(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < got.size(); ++t) threads.emplace_back([&, t] { got[t] = prepare(dir); });
  for (auto& t : threads) t.join();
  int prepared = 0;
  for (const auto& c : got) {
    prepared += !c.reused;
    EXPECT_EQ(c.entry, got[0].entry);
    EXPECT_EQ(c.train.size(), 600u);
  }
  EXPECT_EQ(prepared, 1);
  expect_ids_of_the_text(dir, got[3]);
  only_entry(dir);
}

TEST(PreparedCorpus, ACacheThatCannotBeWrittenIsAClearError) {
  TempDir dir;
  write_corpus(dir, 50);
  write_file(dir.file("blocker"), "a file where the cache folder should be\n");
  try {
    prepare_corpus(dir.file("train.de"), dir.file("train.en"), small_vocab(),
                   dir.file("blocker/cache"), {});
    FAIL() << "expected an error";
  } catch (const FileWriteError& e) {
    EXPECT_NE(std::string(e.what()).find(dir.file("blocker/cache")), std::string::npos) << e.what();
  }
}

TEST(PreparedCorpus, AFifoOrAMissingFileIsRefusedWithoutReading) {
  TempDir dir;
  write_corpus(dir, 50);
  ASSERT_EQ(::mkfifo(dir.file("fifo").c_str(), 0600), 0);
  auto e = expect_input_error([&] {
    prepare_corpus(dir.file("fifo"), dir.file("train.en"), small_vocab(), dir.file("cache"), {});
  });
  EXPECT_EQ(e.file(), dir.file("fifo"));
  EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
  e = expect_input_error([&] {
    prepare_corpus(dir.file("train.de"), dir.file("nowhere.en"), small_vocab(), dir.file("cache"),
                   {});
  });
  EXPECT_NE(std::string(e.what()).find("file not found"), std::string::npos) << e.what();
  // Misaligned sides are the text reader's error, naming both files.
  write_file(dir.file("short.en"), "the dog\n");
  e = expect_input_error([&] {
    prepare_corpus(dir.file("train.de"), dir.file("short.en"), small_vocab(), dir.file("cache"),
                   {});
  });
  EXPECT_NE(std::string(e.what()).find("line count mismatch"), std::string::npos) << e.what();
}

// The loader trains on the prepared corpus: data.max_len leaves pairs out of the mapped rows,
// and the description names the entry.
TEST(PreparedCorpus, TheLoaderMapsItAndFiltersByMaxLen) {
  TempDir dir;
  write_corpus(dir, 400);
  DataConfig cfg;
  cfg.task = "parallel";
  cfg.train_source = dir.file("train.de");
  cfg.train_target = dir.file("train.en");
  cfg.vocab = small_vocab();
  cfg.max_len = 4;
  const Dataset d = load_dataset(cfg, dir.file("cache"), "");
  const PreparedCorpus c = prepare(dir);
  ASSERT_TRUE(c.reused);
  size_t expected_dropped = 0;
  std::vector<Example> kept;
  for (const Example& e : c.train.to_examples()) {
    if (e.src.size() - 1 > 4 || e.tgt.size() - 1 > 4)
      ++expected_dropped;
    else
      kept.push_back(e);
  }
  ASSERT_GT(expected_dropped, 0u);
  EXPECT_EQ(d.dropped_long, expected_dropped);
  ASSERT_EQ(d.train.size(), kept.size());
  for (size_t i = 0; i < kept.size(); ++i) ASSERT_EQ(d.train[i].src, kept[i].src) << i;
  EXPECT_NE(d.description.find("prepared corpus: " + c.entry), std::string::npos) << d.description;
  EXPECT_EQ(d.one_side_empty, c.one_side_empty);
}

// A run's test references (core/data/test_references.h) are the loader's test targets, read
// without preparing the training corpus: `fathom compare` reads them so, never tokenising a
// corpus it only needs the test side of.
TEST(TestReferences, AreTheLoadersTestTargetsWithNothingPrepared) {
  TempDir dir;
  write_corpus(dir, 300);
  write_file(dir.file("data/test.de"), "ein Hund\nder Mann sitzt\n");
  write_file(dir.file("data/test.en"), "a dog\nthe man sits\n");
  DataConfig cfg;
  cfg.task = "parallel";
  cfg.train_source = dir.file("train.de");
  cfg.train_target = dir.file("train.en");
  cfg.test_source = "data/test.de";  // relative: against the config's folder
  cfg.test_target = "data/test.en";
  cfg.vocab = small_vocab();
  const auto references = test_references(cfg, dir.path().string());
  EXPECT_FALSE(fs::exists(dir.file("cache")));  // no vocabulary, no prepared corpus
  EXPECT_EQ(references, (std::vector<std::string>{"a dog", "the man sits"}));
  EXPECT_EQ(references, load_dataset(cfg, dir.file("cache"), dir.path().string()).test_target);

  cfg.test_source = cfg.test_target = "";  // no test split: no references
  EXPECT_TRUE(test_references(cfg, dir.path().string()).empty());

  DataConfig synthetic;
  synthetic.task = "synthetic";
  synthetic.synthetic.test_size = 25;
  const auto generated = test_references(synthetic, "");
  EXPECT_EQ(generated.size(), 25u);
  EXPECT_EQ(generated, load_dataset(synthetic, "", "").test_target);

  DataConfig lm;
  lm.task = "lm";
  EXPECT_EQ(expect_input_error([&] { test_references(lm, ""); }).field(), "data.task");
}

}  // namespace test_prepared_corpus
