// data.task lm prepared once and mapped (prepare_documents, TokenPairs::joined_into_blocks):
// blocks worked by hand, and a prepared language-model corpus giving exactly the rows, ids and
// vocabulary the in-memory loader made (read the lines, train on them alone, encode, join), so
// runs started before the corpus was prepared resume unchanged.
#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/data/dataset.h"
#include "core/data/lm_text.h"
#include "core/data/prepared_corpus.h"
#include "core/data/text_reader.h"
#include "core/data/token_pairs.h"
#include "core/data/vocab.h"
#include "core/data/vocab_cache.h"
#include "tests/support/config_test_helpers.h"

namespace fathom {
namespace test_prepared_documents {
namespace fs = std::filesystem;
using Ids = std::vector<int64_t>;
constexpr int64_t E = kEosId;

std::vector<Ids> targets_of(const std::vector<Example>& examples) {
  std::vector<Ids> out;
  for (const auto& e : examples) {
    EXPECT_TRUE(e.src.empty());
    out.push_back(e.tgt);
  }
  return out;
}

// Documents (5 6 7), (8), (9 10) stored as rows: 5 6 7 E 8 E 9 10 E; blocks of 4 are
// (5 6 7 E) (8 E 9 10) (E), blocks of 3 (5 6 7) (E 8 E) (9 10 E).
TEST(DocumentBlocks, DocumentsJoinedIntoBlocksWorkedByHand) {
  const std::vector<Ids> documents{{5, 6, 7}, {8}, {9, 10}};
  const TokenPairs rows = TokenPairs::from_examples(language_model_examples(documents, 0));
  EXPECT_EQ(targets_of(rows.joined_into_blocks(4).to_examples()),
            (std::vector<Ids>{{5, 6, 7, E}, {8, E, 9, 10}, {E}}));
  EXPECT_EQ(targets_of(rows.joined_into_blocks(3).to_examples()),
            (std::vector<Ids>{{5, 6, 7}, {E, 8, E}, {9, 10, E}}));
  EXPECT_EQ(rows.joined_into_blocks(100).size(), 1u);
  EXPECT_EQ(rows.joined_into_blocks(100).tgt_len(0), 9);

  EXPECT_THROW(rows.joined_into_blocks(0), std::invalid_argument);
  // Rows with a source side are pairs, not documents; a filtered handle has gaps.
  const TokenPairs pairs = TokenPairs::from_examples({Example{{5, E}, {6, E}}});
  EXPECT_THROW(pairs.joined_into_blocks(2), std::invalid_argument);
  std::size_t dropped = 0;
  const TokenPairs filtered = rows.without_longer_than(1, &dropped);
  ASSERT_EQ(dropped, 2u);
  EXPECT_THROW(filtered.joined_into_blocks(2), std::invalid_argument);
}

class PreparedDocuments : public testing::ConfigFiles {
 protected:
  DataConfig lm_config(int block, int max_len) {
    DataConfig d;
    d.task = "lm";
    d.vocab.type = "bpe";
    d.vocab.size = 60;
    d.lm_block = block;
    d.max_len = max_len;
    std::string text;
    for (int i = 0; i < 60; ++i) {
      text += "the cat sat on the mat";
      for (int k = 0; k < i % 7; ++k) text += " and the dog sat on the log";
      text += (i % 9 == 4) ? "\n\n" : "\n";  // a few empty documents too
    }
    d.train_text = write("train.txt", text);
    d.valid_text = write("valid.txt", "the cat sat\n");
    return d;
  }

  // What the loader made before training text was prepared: the lines read whole, the
  // vocabulary trained on them alone, every document encoded and joined.
  std::vector<Ids> in_memory_rows(const DataConfig& cfg) {
    const std::vector<std::string> lines = read_lines(cfg.train_text);
    const auto vocab =
        train_or_load_sentencepiece(lines, {}, cfg.vocab, (dir_ / "memory-cache").string());
    std::vector<Example> examples =
        language_model_examples(encode_all(*vocab, lines), cfg.lm_block);
    std::vector<Ids> rows;
    for (const auto& e : examples)
      if (cfg.lm_block > 0 || static_cast<int>(e.tgt.size()) - 1 <= cfg.max_len)
        rows.push_back(e.tgt);
    return rows;
  }
};

TEST_F(PreparedDocuments, EveryRowIsTheInMemoryLoadersRowForDocumentsAndBlocks) {
  for (const auto& [block, max_len] : {std::pair{0, 30}, std::pair{0, 1000}, std::pair{16, 30}}) {
    SCOPED_TRACE("lm_block " + std::to_string(block) + ", max_len " + std::to_string(max_len));
    const DataConfig cfg = lm_config(block, max_len);
    const std::string cache = (dir_ / "cache").string();
    const Dataset prepared = load_dataset(cfg, cache, "");
    const std::vector<Ids> expected = in_memory_rows(cfg);
    ASSERT_GT(expected.size(), 10u);
    EXPECT_EQ(targets_of(prepared.train.to_examples()), expected);
    if (block == 0 && max_len == 30) {
      EXPECT_GT(prepared.dropped_long, 0u);
    }

    // A second start maps the entry it made, and gets the same rows.
    const Dataset again = load_dataset(cfg, cache, "");
    EXPECT_NE(again.description.find("(mapped)"), std::string::npos) << again.description;
    EXPECT_EQ(targets_of(again.train.to_examples()), expected);
    EXPECT_EQ(again.train.width(), 2) << "a 60-piece vocabulary needs 2 bytes an id";
  }
}

// The document corpus of a file and the parallel corpus of that file with itself are different
// entries; the document entry's key follows the file's bytes.
TEST_F(PreparedDocuments, KeyedApartFromParallelCorporaAndByTheBytes) {
  const DataConfig cfg = lm_config(0, 1000);
  const std::string documents = prepared_corpus_key("", cfg.train_text, cfg.vocab);
  EXPECT_NE(documents, prepared_corpus_key(cfg.train_text, cfg.train_text, cfg.vocab));
  const std::string other = write("train.txt", "something else entirely\n");
  EXPECT_NE(documents, prepared_corpus_key("", other, cfg.vocab));
}

}  // namespace test_prepared_documents
}  // namespace fathom
