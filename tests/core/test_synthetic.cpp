// Tests for the synthetic translation task (core/data/synthetic.h). The rule is checked
// against hand-worked examples, not against the implementation's own output.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "base/util/error.h"
#include "core/data/synthetic.h"

using namespace fathom;

namespace test_synthetic {

SyntheticConfig small_config(uint64_t seed) {
  SyntheticConfig c;
  c.train_size = 2000;
  c.valid_size = 200;
  c.test_size = 200;
  c.seed = seed;
  return c;
}

TEST(Synthetic, RuleOnHandWorkedExamples) {
  // "a3 a5 a7", V = 24: t1 = s3 + s2 = 12, t2 = s2 + s1 = 8, t3 = s1 + s0 = 3.
  // Reversed; +12 (= 24/2) when the left neighbour is odd: 7 (left 5, odd) -> 19,
  // 5 (left 3, odd) -> 17, 3 (left s_0 = 0, even) -> 3.
  EXPECT_EQ(synthetic_target({3, 5, 7}, 24), (std::vector<int>{19, 17, 3}));
  EXPECT_EQ(synthetic_target_text("a3 a5 a7", 24), "b19 b17 b3");
  // 10 (left 20, even) -> 10; 20 (left s_0) -> 20.
  EXPECT_EQ(synthetic_target_text("a20 a10", 24), "b10 b20");
  // 1 (left 23, odd) -> 13; 23 (left 23, odd) -> 35 mod 24 = 11 twice; 23 (left s_0) -> 23.
  EXPECT_EQ(synthetic_target_text("a23 a23 a23 a1", 24), "b13 b11 b11 b23");
  // Odd V: the shift is floor(5/2) = 2; a single symbol has the even virtual neighbour.
  EXPECT_EQ(synthetic_target({4}, 5), (std::vector<int>{4}));
  EXPECT_EQ(synthetic_target({1, 4}, 5), (std::vector<int>{1, 1}));
  EXPECT_THROW(synthetic_target_text("a3 b5", 24), std::invalid_argument);
  EXPECT_THROW(synthetic_target_text("a24", 24), std::invalid_argument);
  EXPECT_THROW(synthetic_target_text("a+3", 24), std::invalid_argument);
}

TEST(Synthetic, SameSeedSameDataDifferentSeedDifferentData) {
  const auto a = make_synthetic_task(small_config(1));
  const auto b = make_synthetic_task(small_config(1));
  const auto c = make_synthetic_task(small_config(2));
  EXPECT_EQ(a.train.source, b.train.source);
  EXPECT_EQ(a.train.target, b.train.target);
  EXPECT_EQ(a.valid.source, b.valid.source);
  EXPECT_EQ(a.test.target, b.test.target);
  EXPECT_NE(a.train.source, c.train.source);
  EXPECT_NE(a.valid.source, c.valid.source);
  EXPECT_NE(a.test.source, c.test.source);
}

TEST(Synthetic, IsPortableAcrossStandardLibraries) {
  // Golden value: only mt19937_64 (fixed by the standard) and Fathom's own range mapping are
  // involved, so this must hold with every compiler and library.
  const auto t = make_synthetic_task(small_config(1));
  EXPECT_EQ(t.train.source[0], "a13 a14 a7 a16 a20 a8 a6 a5 a12 a2 a23 a5");
}

TEST(Synthetic, SentencesFollowTheConfigAndTheRule) {
  SyntheticConfig cfg = small_config(9);
  cfg.vocab = 10;
  cfg.min_len = 3;
  cfg.max_len = 7;
  const auto t = make_synthetic_task(cfg);
  ASSERT_EQ(t.train.source.size(), 2000u);
  ASSERT_EQ(t.valid.source.size(), 200u);
  ASSERT_EQ(t.test.source.size(), 200u);
  std::set<size_t> lengths;
  std::set<std::string> symbols;
  for (const auto* split : {&t.train, &t.valid, &t.test}) {
    for (size_t i = 0; i < split->source.size(); ++i) {
      const std::string& s = split->source[i];
      EXPECT_EQ(split->target[i], synthetic_target_text(s, cfg.vocab));  // also validates symbols
      const size_t n = static_cast<size_t>(std::count(s.begin(), s.end(), ' ') + 1);
      lengths.insert(n);
      size_t start = 0;
      for (size_t end; (end = s.find(' ', start)) != std::string::npos; start = end + 1)
        symbols.insert(s.substr(start, end - start));
      symbols.insert(s.substr(start));
    }
  }
  EXPECT_EQ(lengths, (std::set<size_t>{3, 4, 5, 6, 7}));  // the whole range, nothing outside
  EXPECT_EQ(symbols.size(), 10u);                         // every symbol used
}

TEST(Synthetic, EvaluationSplitsAreUnseen) {
  const auto t = make_synthetic_task(small_config(3));
  const std::set<std::string> train(t.train.source.begin(), t.train.source.end());
  const std::set<std::string> valid(t.valid.source.begin(), t.valid.source.end());
  for (const auto& s : t.valid.source) EXPECT_EQ(train.count(s), 0u) << s;
  for (const auto& s : t.test.source) {
    EXPECT_EQ(train.count(s), 0u) << s;
    EXPECT_EQ(valid.count(s), 0u) << s;
  }
}

TEST(Synthetic, TinySpacesStillTerminate) {
  SyntheticConfig cfg;
  cfg.vocab = 2;
  cfg.min_len = 1;
  cfg.max_len = 2;  // only 6 possible sentences
  cfg.train_size = 50;
  cfg.valid_size = 10;
  cfg.test_size = 10;
  const auto t = make_synthetic_task(cfg);
  EXPECT_EQ(t.valid.source.size(), 10u);
  EXPECT_EQ(t.test.source.size(), 10u);
}

TEST(Synthetic, BadConfigNamesTheField) {
  SyntheticConfig cfg;
  cfg.vocab = 1;
  try {
    make_synthetic_task(cfg);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "data.synthetic.vocab");
  }
  cfg = SyntheticConfig{};
  cfg.min_len = 5;
  cfg.max_len = 4;
  try {
    make_synthetic_task(cfg);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "data.synthetic.max_len");
  }
}

TEST(Synthetic, VocabularyCoversBothSides) {
  SyntheticConfig cfg;
  cfg.vocab = 3;
  auto v = make_synthetic_vocab(cfg);
  EXPECT_EQ(v->size(), 10);
  EXPECT_EQ(v->encode("a0 a2 b1"), (std::vector<int64_t>{4, 6, 8}));
  EXPECT_EQ(v->decode({4, 6, 8, 3}), "a0 a2 b1");
}

}  // namespace test_synthetic
