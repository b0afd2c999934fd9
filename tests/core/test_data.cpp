// Tests for the data pipeline (core/data): corpus reading, vocabularies, batching, the loader.
// Expectations are written by hand from the specification, not taken from the code's output.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <thread>

#include "base/config/corpus_path.h"
#include "base/util/error.h"
#include "base/util/utf8.h"
#include "core/data/batch.h"
#include "core/data/dataset.h"
#include "core/data/rng.h"
#include "core/data/text_reader.h"
#include "core/data/vocab_cache.h"
#include "core/data/word_vocab.h"
#include "tests/support/input_error.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using namespace fathom;

namespace test_data {

using fathom::testing::TempDir;

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

void write_gzip(const std::string& path, const std::string& bytes) {
  gzFile gz = gzopen(path.c_str(), "wb");
  ASSERT_NE(gz, nullptr);
  ASSERT_EQ(gzwrite(gz, bytes.data(), static_cast<unsigned>(bytes.size())),
            static_cast<int>(bytes.size()));
  gzclose(gz);
}

// Multi30k as `fathom data get multi30k` puts it in the corpora folder (scripts/run-tests.sh
// gets it from ../shared/data when that is there).
std::string multi30k_dir() { return fathom::corpora_home() + "/multi30k"; }
bool have_multi30k() { return fs::exists(multi30k_dir() + "/train.de.gz"); }

using fathom::testing::expect_input_error;

// ---------------------------------------------------------------------------------------------
// Reading text

TEST(TextReader, GzipAndPlainGiveIdenticalLines) {
  TempDir dir;
  // CRLF endings, a UTF-8 BOM, umlauts, an empty line and no final newline.
  const std::string text = "\xEF\xBB\xBFZwei M\xC3\xA4nner.\r\nA dog runs.\r\n\r\nlast line";
  const std::vector<std::string> expected = {"Zwei M\xC3\xA4nner.", "A dog runs.", "", "last line"};
  write_file(dir.file("plain.txt"), text);
  write_gzip(dir.file("packed.gz"), text);
  write_gzip(dir.file("packed_without_suffix.txt"), text);  // detected by magic bytes
  EXPECT_EQ(read_lines(dir.file("plain.txt")), expected);
  EXPECT_EQ(read_lines(dir.file("packed.gz")), expected);
  EXPECT_EQ(read_lines(dir.file("packed_without_suffix.txt")), expected);
}

TEST(TextReader, FinalNewlineAddsNoLine) {
  TempDir dir;
  write_file(dir.file("a.txt"), "one\ntwo\n");
  EXPECT_EQ(read_lines(dir.file("a.txt")), (std::vector<std::string>{"one", "two"}));
  write_file(dir.file("b.txt"), "\n");  // one empty line is content, not an empty file
  EXPECT_EQ(read_lines(dir.file("b.txt")), (std::vector<std::string>{""}));
}

TEST(TextReader, Multi30kGzipMatchesItsPlainCopy) {
  if (!have_multi30k())
    GTEST_SKIP() << "SKIPPED: no Multi30k at " << multi30k_dir() << " (fathom data get multi30k)";
  const auto gz_lines = read_lines(multi30k_dir() + "/val.de.gz");
  ASSERT_EQ(gz_lines.size(), 1014u);
  // Decompress independently with zlib's gzread into a plain file and read that.
  TempDir dir;
  gzFile gz = gzopen((multi30k_dir() + "/val.de.gz").c_str(), "rb");
  ASSERT_NE(gz, nullptr);
  std::string raw;
  char buf[4096];
  for (int n; (n = gzread(gz, buf, sizeof buf)) > 0;) raw.append(buf, static_cast<size_t>(n));
  gzclose(gz);
  write_file(dir.file("val.de"), raw);
  EXPECT_EQ(read_lines(dir.file("val.de")), gz_lines);

  const auto pair =
      read_parallel_text(multi30k_dir() + "/train.de.gz", multi30k_dir() + "/train.en.gz");
  EXPECT_EQ(pair.source.size(), 29000u);
  EXPECT_EQ(pair.target.size(), 29000u);
  const auto test = read_parallel_text(multi30k_dir() + "/test_2016_flickr.de.gz",
                                       multi30k_dir() + "/test_2016_flickr.en.gz");
  EXPECT_EQ(test.source.size(), 1000u);
}

TEST(TextReader, MismatchedLineCountsNameBothFilesAndCounts) {
  TempDir dir;
  write_file(dir.file("src.txt"), "a\nb\nc\n");
  write_file(dir.file("tgt.txt"), "x\ny\n");
  const auto e =
      expect_input_error([&] { read_parallel_text(dir.file("src.txt"), dir.file("tgt.txt")); });
  const std::string what = e.what();
  EXPECT_NE(what.find(dir.file("src.txt")), std::string::npos) << what;
  EXPECT_NE(what.find(dir.file("tgt.txt")), std::string::npos) << what;
  EXPECT_NE(what.find("3"), std::string::npos) << what;
  EXPECT_NE(what.find("2"), std::string::npos) << what;
}

TEST(TextReader, EmptyFileIsAnError) {
  TempDir dir;
  write_file(dir.file("empty.txt"), "");
  const auto e = expect_input_error([&] { read_lines(dir.file("empty.txt")); });
  EXPECT_EQ(e.file(), dir.file("empty.txt"));
  EXPECT_NE(std::string(e.what()).find("empty"), std::string::npos);
  write_gzip(dir.file("empty.gz"), "");
  EXPECT_THROW(read_lines(dir.file("empty.gz")), InputError);
}

TEST(TextReader, TruncatedGzipIsAnError) {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 2000; ++i) text += "line number " + std::to_string(i) + "\n";
  write_gzip(dir.file("full.gz"), text);
  std::ifstream in(dir.file("full.gz"), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  write_file(dir.file("cut.gz"), bytes.substr(0, bytes.size() / 2));
  const auto e = expect_input_error([&] { read_lines(dir.file("cut.gz")); });
  EXPECT_EQ(e.file(), dir.file("cut.gz"));
  EXPECT_EQ(read_lines(dir.file("full.gz")).size(), 2000u);
}

TEST(TextReader, MissingFileIsNamed) {
  const auto e = expect_input_error([] { read_lines("/nonexistent/fathom/corpus.de"); });
  EXPECT_EQ(e.file(), "/nonexistent/fathom/corpus.de");
  EXPECT_NE(std::string(e.what()).find("/nonexistent/fathom/corpus.de"), std::string::npos);
}

// No corpus file may take the machine's memory or hang a run (issue 57 item 5): a device or a
// FIFO is refused before it is read; a line of over 64 MiB is an error at its line, found
// before the rest of the file is read.
TEST(TextReader, EndlessFilesAndHugeLinesAreRefused) {
  TempDir dir;
  auto e = expect_input_error([&] { read_lines("/dev/zero"); });
  EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
  ASSERT_EQ(::mkfifo(dir.file("fifo").c_str(), 0600), 0);
  e = expect_input_error([&] { read_lines(dir.file("fifo")); });  // no writer: would block
  EXPECT_EQ(e.file(), dir.file("fifo"));
  {
    std::ofstream out(dir.file("huge.txt"), std::ios::binary);
    out << "first line\n";
    const std::string block(1 << 20, 'x');
    for (size_t i = 0; i <= (LineReader::kMaxLineBytes >> 20); ++i) out << block;
    out << "\nlast\n";
  }
  e = expect_input_error([&] { read_lines(dir.file("huge.txt")); });
  EXPECT_EQ(e.line(), 2);
  EXPECT_NE(std::string(e.what()).find("longer than 64 MiB"), std::string::npos) << e.what();
}

// A file named .gz that is not gzip is read as plain text; when that text is not UTF-8 the
// error says the file is no gzip (issue 57 item 12: only "invalid UTF-8").
TEST(TextReader, ANonGzipFileNamedGzIsSaidToBeOne) {
  TempDir dir;
  write_file(dir.file("fake.gz"), std::string("ok line\n\x1f\x9c\xff binary\n"));
  const auto e = expect_input_error([&] { read_lines(dir.file("fake.gz")); });
  EXPECT_EQ(e.line(), 2);
  EXPECT_NE(std::string(e.what()).find("named .gz but holds no gzip data"), std::string::npos)
      << e.what();
  write_file(dir.file("plain.txt"), std::string("\xff\n"));
  const auto plain = expect_input_error([&] { read_lines(dir.file("plain.txt")); });
  EXPECT_EQ(std::string(plain.what()).find("gzip"), std::string::npos) << plain.what();
}

TEST(TextReader, InvalidUtf8ReportsTheLine) {
  TempDir dir;
  write_file(dir.file("bad.txt"), "fine\nstill fine \xC3\xA4\nbroken \xC3\x28 here\nok\n");
  auto e = expect_input_error([&] { read_lines(dir.file("bad.txt")); });
  EXPECT_EQ(e.file(), dir.file("bad.txt"));
  EXPECT_EQ(e.line(), 3);
  // Also inside a gzip stream, and on the target side of a pair.
  write_gzip(dir.file("bad.gz"), "x\ny\nz\n\xFF\n");
  write_file(dir.file("good.txt"), "a\nb\nc\nd\n");
  e = expect_input_error([&] { read_parallel_text(dir.file("good.txt"), dir.file("bad.gz")); });
  EXPECT_EQ(e.file(), dir.file("bad.gz"));
  EXPECT_EQ(e.line(), 4);
}

TEST(TextReader, Utf8Validator) {
  EXPECT_EQ(find_invalid_utf8("plain ascii"), std::string_view::npos);
  EXPECT_EQ(find_invalid_utf8("\xC3\xA4\xE2\x82\xAC\xF0\x9F\x98\x80"), std::string_view::npos);
  EXPECT_EQ(find_invalid_utf8("ab\x80"), 2u);            // stray continuation byte
  EXPECT_EQ(find_invalid_utf8("\xC0\xAF"), 0u);          // overlong '/'
  EXPECT_EQ(find_invalid_utf8("\xE0\x80\xAF"), 0u);      // overlong, 3 bytes
  EXPECT_EQ(find_invalid_utf8("x\xED\xA0\x80"), 1u);     // UTF-16 surrogate
  EXPECT_EQ(find_invalid_utf8("\xF4\x90\x80\x80"), 0u);  // above U+10FFFF
  EXPECT_EQ(find_invalid_utf8("abc\xE2\x82"), 3u);       // truncated at the end
}

TEST(TextReader, OneSidedEmptyLinesAreCounted) {
  TempDir dir;
  write_file(dir.file("s.txt"), "a\n\nc\n\n");
  write_file(dir.file("t.txt"), "x\ny\n\n\n");
  const auto p = read_parallel_text(dir.file("s.txt"), dir.file("t.txt"));
  EXPECT_EQ(p.source.size(), 4u);
  EXPECT_EQ(p.one_side_empty, 2u);  // lines 2 and 3; line 4 is empty on both sides
}

// ---------------------------------------------------------------------------------------------
// Word vocabulary and special ids

TEST(WordVocab, EncodeDecodeAndSpecials) {
  WordVocab v({"a0", "a1", "b0"});
  EXPECT_EQ(v.size(), 7);
  EXPECT_EQ(v.encode("a1  a0\tb0 zz"), (std::vector<int64_t>{5, 4, 6, kUnkId}));
  // decode stops at eos and skips pad/bos.
  EXPECT_EQ(v.decode({kBosId, 5, kPadId, 6, kEosId, 4, 4}), "a1 b0");
  EXPECT_EQ(v.decode({}), "");
  EXPECT_EQ(v.piece(kEosId), "</s>");
  EXPECT_EQ(v.piece(99), "<unk>");
  EXPECT_EQ(v.decode(v.encode("b0 a1 a1")), "b0 a1 a1");
}

// ---------------------------------------------------------------------------------------------
// Batching

std::vector<Example> random_examples(size_t n, int max_len, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Example> out;
  for (size_t i = 0; i < n; ++i) {
    const auto s = 1 + uniform_below(rng, static_cast<uint64_t>(max_len));
    const auto t = 1 + uniform_below(rng, static_cast<uint64_t>(max_len));
    out.push_back(make_example(std::vector<int64_t>(s, 7), std::vector<int64_t>(t, 8)));
  }
  return out;
}

TEST(Batching, CollatePlacesBosEosAndPad) {
  const std::vector<Example> ex = {make_example({5, 6}, {7}), make_example({8}, {9, 10, 11})};
  EXPECT_EQ(ex[0].src, (std::vector<int64_t>{5, 6, 3}));
  EXPECT_EQ(ex[1].tgt, (std::vector<int64_t>{9, 10, 11, 3}));
  const Batch b = collate(ex, {0, 1});
  const auto as_rows = [](const torch::Tensor& t) {
    std::vector<std::vector<int64_t>> rows;
    for (int64_t r = 0; r < t.size(0); ++r) {
      auto row = t[r].contiguous();
      rows.emplace_back(row.data_ptr<int64_t>(), row.data_ptr<int64_t>() + row.numel());
    }
    return rows;
  };
  using Rows = std::vector<std::vector<int64_t>>;
  EXPECT_EQ(b.src.scalar_type(), torch::kInt64);
  EXPECT_EQ(as_rows(b.src), (Rows{{5, 6, 3}, {8, 3, 0}}));
  EXPECT_EQ(as_rows(b.tgt_in), (Rows{{2, 7, 0, 0}, {2, 9, 10, 11}}));
  EXPECT_EQ(as_rows(b.tgt_out), (Rows{{7, 3, 0, 0}, {9, 10, 11, 3}}));
  EXPECT_EQ(b.src_tokens, 5);
  EXPECT_EQ(b.tgt_tokens, 6);
  EXPECT_EQ(b.ids, (std::vector<size_t>{0, 1}));
  // Order of ids decides the row order.
  const Batch r = collate(ex, {1, 0});
  EXPECT_EQ(as_rows(r.src), (Rows{{8, 3, 0}, {5, 6, 3}}));
  const Batch moved = b.to(torch::Device(torch::kCPU));
  EXPECT_TRUE(moved.tgt_out.equal(b.tgt_out));
  EXPECT_EQ(moved.tgt_tokens, 6);
}

TEST(Batching, EveryBatchWithinBudgetAndEveryExampleOncePerEpoch) {
  auto ex = random_examples(3000, 60, 42);
  ex.push_back(make_example(std::vector<int64_t>(400, 7), {9}));  // longer than the budget
  const int64_t budget = 256;
  const BatchPlan plan = plan_batches(ex, budget);
  bool saw_oversized_alone = false;
  const auto batches = plan.all();
  for (const auto& b : batches) {
    ASSERT_FALSE(b.empty());
    if (b.size() > 1) {
      EXPECT_LE(padded_tokens(ex, b), budget);
    }
    if (b.size() == 1 && b[0] == ex.size() - 1) saw_oversized_alone = true;
    // The padded size matches the collated tensors.
    if (&b == &batches.front()) {
      const Batch t = collate(ex, b);
      EXPECT_EQ(padded_tokens(ex, b), t.src.size(0) * std::max(t.src.size(1), t.tgt_out.size(1)));
    }
  }
  EXPECT_TRUE(saw_oversized_alone);
  // Bucketing keeps padding low: far fewer batches than rows.
  EXPECT_LT(plan.size(), ex.size() / 4);

  for (int64_t epoch = 0; epoch < 3; ++epoch) {
    std::vector<int> seen(ex.size(), 0);
    for (const auto& b : epoch_batches(plan, 7, epoch))
      for (size_t id : b) ++seen[id];
    EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }))
        << "epoch " << epoch;
  }
}

TEST(Batching, OrderIsAFunctionOfSeedAndEpoch) {
  const auto ex = random_examples(2000, 40, 3);
  const BatchPlan plan = plan_batches(ex, 200);
  ASSERT_GT(plan.size(), 20u);
  EXPECT_EQ(epoch_batches(plan, 1, 0), epoch_batches(plan, 1, 0));
  EXPECT_EQ(epoch_batches(plan, 1, 5), epoch_batches(plan_batches(ex, 200), 1, 5));
  EXPECT_NE(epoch_batches(plan, 1, 0), epoch_batches(plan, 1, 1));
  EXPECT_NE(epoch_batches(plan, 1, 0), epoch_batches(plan, 2, 0));
  EXPECT_NE(epoch_batches(plan, 1, 0), plan.all());  // shuffled, not the sorted order
}

TEST(Batching, PermutationIsPortable) {
  // Golden values: the batch order must not depend on the standard library. A failure here
  // means resumed runs would see a different data order than the run that wrote them.
  std::mt19937_64 rng(derive_seed(1, 0));
  EXPECT_EQ(random_permutation(8, rng), (std::vector<size_t>{0, 2, 3, 7, 6, 4, 1, 5}));
}

TEST(Batching, SortedByLengthAndStable) {
  std::vector<Example> ex = {make_example({1, 1, 1}, {1}), make_example({1}, {1, 1}),
                             make_example({1}, {1}), make_example({1}, {1, 1})};
  const BatchPlan plan = plan_batches(ex, 1000);
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_EQ(plan.batch(0), (std::vector<size_t>{2, 1, 3, 0}));
  // Widths in sorted order are 2, 3, 3, 4 (with eos). Budget 6: {2,1} pads to 2 * 3 = 6;
  // adding 3 would give 3 * 3 = 9; {3, 0} would give 2 * 4 = 8.
  const BatchPlan small = plan_batches(ex, 6);
  EXPECT_EQ(small.all(), (std::vector<std::vector<size_t>>{{2, 1}, {3}, {0}}));
}

TEST(Batching, DropLongExamples) {
  std::vector<Example> ex = {make_example({1, 1}, {1}), make_example({1, 1, 1}, {1}),
                             make_example({1}, {1, 1, 1, 1}), make_example({1}, {1})};
  EXPECT_EQ(drop_long_examples(ex, 2), 2u);  // eos not counted: lengths 2 and 1 stay
  ASSERT_EQ(ex.size(), 2u);
  EXPECT_EQ(ex[0].src.size(), 3u);
  EXPECT_EQ(drop_long_examples(ex, 0), 0u);  // 0: no filter
}

// ---------------------------------------------------------------------------------------------
// SentencePiece vocabulary and its cache

struct SmallCorpus {
  std::vector<std::string> de, en;
};
// The first `n` training pairs of Multi30k (read once; reading all 29k takes ~0.1 s).
const SmallCorpus& multi30k_head(size_t n = 3000) {
  static SmallCorpus c = [n] {
    auto p = read_parallel_text(multi30k_dir() + "/train.de.gz", multi30k_dir() + "/train.en.gz");
    p.source.resize(n);
    p.target.resize(n);
    return SmallCorpus{p.source, p.target};
  }();
  return c;
}
size_t count_entries(const fs::path& dir) {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind("spm-", 0) == 0) ++n;
  return n;
}

TEST(SentencePiece, TrainRoundTripAndCache) {
  if (!have_multi30k())
    GTEST_SKIP() << "SKIPPED: no Multi30k at " << multi30k_dir() << " (fathom data get multi30k)";
  const auto& c = multi30k_head();
  TempDir cache;
  VocabConfig cfg;
  cfg.type = "bpe";
  cfg.size = 300;

  auto v = train_or_load_sentencepiece(c.de, c.en, cfg, cache.path().string());
  EXPECT_FALSE(v->reused());
  EXPECT_EQ(v->size(), 300);
  EXPECT_EQ(v->piece(kPadId), "<pad>");
  EXPECT_EQ(v->piece(kUnkId), "<unk>");
  EXPECT_EQ(v->piece(kBosId), "<s>");
  EXPECT_EQ(v->piece(kEosId), "</s>");
  EXPECT_TRUE(fs::exists(v->model_path()));

  // Typical sentences of both languages survive encode -> decode exactly and never encode to
  // special ids. "Typical": SentencePiece's normalization collapses repeated and surrounding
  // spaces, so the few corpus lines with those are excluded from the exact check.
  size_t checked = 0;
  for (size_t i = 0; i < 300; ++i) {
    for (const std::string& s : {c.de[i], c.en[i]}) {
      if (s.find("  ") != std::string::npos || s.empty() || s.front() == ' ' || s.back() == ' ')
        continue;
      const auto ids = v->encode(s);
      EXPECT_TRUE(std::none_of(ids.begin(), ids.end(), [](int64_t id) { return id < 4; })) << s;
      EXPECT_EQ(v->decode(ids), s);
      ++checked;
    }
  }
  EXPECT_GT(checked, 580u);
  // decode honours eos/pad/bos.
  auto ids = v->encode("A man is sleeping.");
  std::vector<int64_t> framed = {kBosId};
  framed.insert(framed.end(), ids.begin(), ids.end());
  framed.push_back(kEosId);
  framed.push_back(ids.front());
  framed.push_back(kPadId);
  EXPECT_EQ(v->decode(framed), "A man is sleeping.");

  // Same inputs: the cached model is reused and behaves identically.
  auto again = train_or_load_sentencepiece(c.de, c.en, cfg, cache.path().string());
  EXPECT_TRUE(again->reused());
  EXPECT_EQ(again->model_path(), v->model_path());
  EXPECT_EQ(again->encode(c.de[7]), v->encode(c.de[7]));
  EXPECT_EQ(count_entries(cache.path()), 1u);

  // Another size is another entry; so is other text.
  VocabConfig bigger = cfg;
  bigger.size = 400;
  auto v400 = train_or_load_sentencepiece(c.de, c.en, bigger, cache.path().string());
  EXPECT_FALSE(v400->reused());
  EXPECT_NE(v400->model_path(), v->model_path());
  EXPECT_EQ(v400->size(), 400);
  EXPECT_EQ(count_entries(cache.path()), 2u);
  std::vector<std::string> fewer(c.de.begin(), c.de.begin() + 2000);
  EXPECT_NE(sentencepiece_cache_key(fewer, c.en, cfg), sentencepiece_cache_key(c.de, c.en, cfg));
  // Swapping sides is different text too (the cache key must not just concatenate).
  EXPECT_NE(sentencepiece_cache_key(c.en, c.de, cfg), sentencepiece_cache_key(c.de, c.en, cfg));
  // No temporary folders are left behind.
  for (const auto& e : fs::directory_iterator(cache.path()))
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
}

// A cache entry is a copy of what training makes: a corrupt spm.model (a truncated copy, a bad
// block) is rebuilt, not fatal, and the rebuilt model encodes as the original did.
TEST(SentencePiece, CorruptCacheEntryIsRebuilt) {
  if (!have_multi30k())
    GTEST_SKIP() << "SKIPPED: no Multi30k at " << multi30k_dir() << " (fathom data get multi30k)";
  const auto& c = multi30k_head();
  const std::vector<std::string> de(c.de.begin(), c.de.begin() + 1000);
  const std::vector<std::string> en(c.en.begin(), c.en.begin() + 1000);
  VocabConfig cfg;
  cfg.size = 150;
  TempDir cache;
  auto first = train_or_load_sentencepiece(de, en, cfg, cache.path().string());
  const auto expected = first->encode(en[5]);
  for (const std::string& garbage : {std::string("not a model"), std::string()}) {
    std::ofstream(first->model_path(), std::ios::binary | std::ios::trunc) << garbage;
    auto rebuilt = train_or_load_sentencepiece(de, en, cfg, cache.path().string());
    EXPECT_FALSE(rebuilt->reused());
    EXPECT_EQ(rebuilt->model_path(), first->model_path());
    EXPECT_EQ(rebuilt->encode(en[5]), expected);
    EXPECT_EQ(count_entries(cache.path()), 1u);
    for (const auto& e : fs::directory_iterator(cache.path()))  // nothing set aside is left
      EXPECT_EQ(e.path().filename().string().find(".corrupt"), std::string::npos) << e.path();
  }
}

TEST(SentencePiece, TrainingIsDeterministic) {
  if (!have_multi30k())
    GTEST_SKIP() << "SKIPPED: no Multi30k at " << multi30k_dir() << " (fathom data get multi30k)";
  const auto& c = multi30k_head();
  VocabConfig cfg;
  cfg.type = "unigram";  // the trainer with multi-threaded sums: the harder case
  cfg.size = 300;
  const std::vector<std::string> de(c.de.begin(), c.de.begin() + 1500);
  const std::vector<std::string> en(c.en.begin(), c.en.begin() + 1500);
  TempDir a, b;
  auto va = train_or_load_sentencepiece(de, en, cfg, a.path().string());
  auto vb = train_or_load_sentencepiece(de, en, cfg, b.path().string());
  EXPECT_FALSE(vb->reused());
  // Same pieces in the same order (the model files themselves differ: they record the
  // temporary training paths), hence the same encodings.
  ASSERT_EQ(va->size(), vb->size());
  for (int64_t id = 0; id < va->size(); ++id) ASSERT_EQ(va->piece(id), vb->piece(id)) << id;
  for (size_t i = 0; i < 50; ++i) EXPECT_EQ(va->encode(c.en[i]), vb->encode(c.en[i]));
  EXPECT_EQ(va->decode(va->encode(c.en[3])), c.en[3]);
}

TEST(SentencePiece, ConcurrentTrainersShareOneEntry) {
  if (!have_multi30k())
    GTEST_SKIP() << "SKIPPED: no Multi30k at " << multi30k_dir() << " (fathom data get multi30k)";
  const auto& c = multi30k_head();
  const std::vector<std::string> de(c.de.begin(), c.de.begin() + 1000);
  const std::vector<std::string> en(c.en.begin(), c.en.begin() + 1000);
  VocabConfig cfg;
  cfg.size = 120;
  TempDir cache;
  std::shared_ptr<SentencePieceVocab> a, b;
  std::thread ta([&] { a = train_or_load_sentencepiece(de, en, cfg, cache.path().string()); });
  std::thread tb([&] { b = train_or_load_sentencepiece(de, en, cfg, cache.path().string()); });
  ta.join();
  tb.join();
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->model_path(), b->model_path());
  EXPECT_EQ(a->encode(en[5]), b->encode(en[5]));
  EXPECT_EQ(count_entries(cache.path()), 1u);
  size_t leftovers = 0;
  for (const auto& e : fs::directory_iterator(cache.path()))
    leftovers += e.path().filename().string().find(".tmp") != std::string::npos;
  EXPECT_EQ(leftovers, 0u);
}

// While a vocabulary is learnt, its temporary folder is locked (`fathom data cache` keeps it);
// the lock goes when the folder becomes the entry. Watched from another thread: its own
// descriptor, so flock(2) sees the learner's lock as another holder's.
TEST(SentencePiece, ALearnerHoldsALockOnTheFolderItLearnsIn) {
  if (!have_multi30k())
    GTEST_SKIP() << "SKIPPED: no Multi30k at " << multi30k_dir() << " (fathom data get multi30k)";
  const auto& c = multi30k_head();
  VocabConfig cfg;
  cfg.size = 1500;
  int seen_locked = 0, seen_unlocked = 0;
  // A learning takes ~0.2 s; a loaded machine may not schedule the watcher in it: up to three.
  for (int attempt = 0; attempt < 3 && seen_locked == 0; ++attempt) {
    TempDir cache;
    std::atomic<bool> done{false};
    std::thread watcher([&] {
      while (!done) {
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(cache.path(), ec)) {
          const std::string name = e.path().filename().string();
          if (key_of_vocabulary_temporary(name).empty() || !fs::exists(e.path() / "train.txt", ec))
            continue;  // not one, or not yet written to (the lock comes first)
          if (vocabulary_being_learnt(e.path().string()))
            ++seen_locked;
          else if (fs::exists(e.path(), ec))  // not renamed away between the two looks
            ++seen_unlocked;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
    });
    const auto vocab = train_or_load_sentencepiece(c.de, c.en, cfg, cache.path().string());
    done = true;
    watcher.join();
    ASSERT_TRUE(vocab);
    EXPECT_FALSE(vocabulary_being_learnt(fs::path(vocab->model_path()).parent_path().string()));
  }
  EXPECT_GT(seen_locked, 0) << "never saw the folder being learnt in";
  EXPECT_EQ(seen_unlocked, 0);
  EXPECT_EQ(key_of_vocabulary_temporary(".spm-bpe-8000-abc.tmp-12-x"), "spm-bpe-8000-abc");
  EXPECT_EQ(key_of_vocabulary_temporary(".corpus-abc.tmp-12-x"), "");
  EXPECT_EQ(key_of_vocabulary_temporary("spm-bpe-8000-abc"), "");
  EXPECT_EQ(key_of_vocabulary_temporary(".spm-.tmp-1"), "");
}

TEST(SentencePiece, BadSettingsAreInputErrors) {
  TempDir cache;
  const std::vector<std::string> text = {"ein Hund", "zwei Hunde"};
  VocabConfig cfg;
  cfg.type = "wordpiece";
  auto e = expect_input_error(
      [&] { train_or_load_sentencepiece(text, text, cfg, cache.path().string()); });
  EXPECT_EQ(e.field(), "data.vocab.type");
  cfg.type = "bpe";
  cfg.size = 2;
  e = expect_input_error(
      [&] { train_or_load_sentencepiece(text, text, cfg, cache.path().string()); });
  EXPECT_EQ(e.field(), "data.vocab.size");
  // Too small for the corpus's characters: SentencePiece's own error, as an InputError.
  cfg.size = 9;
  e = expect_input_error(
      [&] { train_or_load_sentencepiece(text, text, cfg, cache.path().string()); });
  EXPECT_EQ(e.field(), "data.vocab");
  EXPECT_NE(std::string(e.what()).find("SentencePiece"), std::string::npos) << e.what();
  std::cout << "[ info ] " << e.what() << "\n";
  // A corrupt cached model is reported with its path.
  write_file(cache.file("model"), "not a model");
  e = expect_input_error([&] { SentencePieceVocab(cache.file("model")); });
  EXPECT_EQ(e.file(), cache.file("model"));
}

// ---------------------------------------------------------------------------------------------
// The loader

TEST(LoadDataset, ParallelWithRelativePathsAndOptionalSplits) {
  TempDir dir;
  fs::create_directories(dir.path() / "corpus");
  // A small two-language corpus with a couple of long lines for the max_len filter.
  std::string de, en;
  const std::vector<std::string> w_de = {"der", "Hund", "läuft", "schnell", "im", "Park"};
  const std::vector<std::string> w_en = {"the", "dog", "runs", "fast", "in", "park"};
  std::mt19937_64 rng(5);
  for (int i = 0; i < 400; ++i) {
    const int n = i < 2 ? 60 : 3 + static_cast<int>(uniform_below(rng, 5));
    std::string a, b;
    for (int k = 0; k < n; ++k) {
      const size_t w = uniform_below(rng, w_de.size());
      a += (k ? " " : "") + w_de[w];
      b += (k ? " " : "") + w_en[w];
    }
    de += a + "\n";
    en += b + "\n";
  }
  write_file(dir.file("corpus/train.de"), de);
  write_gzip(dir.file("corpus/train.en.gz"), en);
  write_file(dir.file("corpus/test.de"), "der Hund\nim Park\n");
  write_file(dir.file("corpus/test.en"), "the dog\nin park\n");

  DataConfig cfg;
  cfg.task = "parallel";
  cfg.train_source = "corpus/train.de";
  cfg.train_target = "corpus/train.en.gz";
  cfg.test_source = "corpus/test.de";
  cfg.test_target = "corpus/test.en";
  cfg.vocab.size = 40;
  // The two 60-word lines need >= 60 pieces; the 3-7 word lines at most 7 * 8 = 56.
  cfg.max_len = 59;
  const std::string cache = dir.file("cache");
  Dataset d = load_dataset(cfg, cache, dir.path().string());
  EXPECT_EQ(d.dropped_long, 2u);
  EXPECT_EQ(d.train.size(), 398u);
  EXPECT_TRUE(d.valid.empty());  // not configured
  EXPECT_TRUE(d.valid_source.empty());
  ASSERT_EQ(d.test.size(), 2u);
  EXPECT_EQ(d.test_target, (std::vector<std::string>{"the dog", "in park"}));
  EXPECT_EQ(d.test[1].tgt.back(), kEosId);
  EXPECT_EQ(d.vocab->decode(d.test[1].tgt), "in park");
  EXPECT_EQ(d.vocab->decode(d.test[0].src), "der Hund");
  EXPECT_NE(d.description.find("dropped 2"), std::string::npos) << d.description;
  EXPECT_TRUE(fs::exists(cache));

  // Half of an evaluation pair is an error naming the missing field.
  cfg.valid_source = "corpus/test.de";
  auto e = expect_input_error([&] { load_dataset(cfg, cache, dir.path().string()); });
  EXPECT_EQ(e.field(), "data.valid_target");
  cfg.valid_source.clear();
  // Relative paths resolve against the config folder, not the working directory.
  e = expect_input_error([&] { load_dataset(cfg, cache, dir.file("corpus")); });
  EXPECT_NE(e.file().find("corpus/corpus/train.de"), std::string::npos) << e.what();
  cfg.task = "nonsense";
  e = expect_input_error([&] { load_dataset(cfg, cache, dir.path().string()); });
  EXPECT_EQ(e.field(), "data.task");
}

TEST(LoadDataset, Synthetic) {
  DataConfig cfg;
  cfg.task = "synthetic";
  cfg.synthetic.train_size = 300;
  cfg.synthetic.valid_size = 20;
  cfg.synthetic.test_size = 30;
  Dataset d = load_dataset(cfg, "", "");
  EXPECT_EQ(d.vocab->size(), 4 + 2 * 24);
  EXPECT_EQ(d.train.size(), 300u);
  ASSERT_EQ(d.valid.size(), 20u);
  EXPECT_EQ(d.test_source.size(), 30u);
  for (size_t i = 0; i < d.valid.size(); ++i) {
    EXPECT_EQ(d.vocab->decode(d.valid[i].src), d.valid_source[i]);
    EXPECT_EQ(d.vocab->decode(d.valid[i].tgt), d.valid_target[i]);
    EXPECT_EQ(d.valid[i].src.size(), d.valid[i].tgt.size());  // target length = source length
  }
  cfg.max_len = 8;
  d = load_dataset(cfg, "", "");
  EXPECT_GT(d.dropped_long, 0u);
  for (const auto& ex : d.train.to_examples()) EXPECT_LE(ex.src.size(), 9u);
}

// Reading Multi30k twice: the second load reuses the cached vocabulary and encodes the same
// ids. (How long it takes is bench/bench_data's to measure, not a test's.)
TEST(LoadDataset, Multi30kLoadsAgainFromTheCache) {
  if (!have_multi30k())
    GTEST_SKIP() << "SKIPPED: no Multi30k at " << multi30k_dir() << " (fathom data get multi30k)";
  DataConfig cfg;  // a small vocabulary keeps its training short
  cfg.train_source = multi30k_dir() + "/train.de.gz";
  cfg.train_target = multi30k_dir() + "/train.en.gz";
  cfg.valid_source = multi30k_dir() + "/val.de.gz";
  cfg.valid_target = multi30k_dir() + "/val.en.gz";
  cfg.vocab.size = 1000;
  TempDir cache;
  Dataset d = load_dataset(cfg, cache.path().string(), "");
  EXPECT_EQ(d.train.size() + d.dropped_long, 29000u);
  EXPECT_EQ(d.valid.size(), 1014u);
  Dataset again = load_dataset(cfg, cache.path().string(), "");
  EXPECT_NE(again.description.find("cached"), std::string::npos) << again.description;
  EXPECT_EQ(again.train.size(), d.train.size());
  EXPECT_EQ(again.train[123].src, d.train[123].src);
  EXPECT_EQ(again.valid[1000].tgt, d.valid[1000].tgt);
}

}  // namespace test_data
