// The pieces of data parallelism that need no second process (core/train/gradient_reduce.h):
// which of an update's batches a rank trains, and the note on shares the ranks cannot split
// evenly -- against hand-counted batches. The reduction itself is tested with real ranks in
// test_data_parallel.cpp.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

#include "core/data/batch.h"
#include "core/data/example.h"
#include "core/data/token_pairs.h"
#include "core/train/gradient_reduce.h"

namespace test_gradient_reduce {
using fathom::batches_of_rank;
using fathom::rank_balance_note;

TEST(BatchesOfRank, EveryWorldthBatchFromTheRankOn) {
  EXPECT_EQ(batches_of_rank(5, 0, 2), (std::vector<size_t>{0, 2, 4}));
  EXPECT_EQ(batches_of_rank(5, 1, 2), (std::vector<size_t>{1, 3}));
  EXPECT_EQ(batches_of_rank(1, 1, 2), (std::vector<size_t>{}));  // nothing: zero gradients
  EXPECT_EQ(batches_of_rank(3, 0, 1), (std::vector<size_t>{0, 1, 2}));
}

// 40 pairs of 3 ids a side (4 with eos): a budget of 40 padded tokens holds 10 rows, so the
// plan has 4 batches of 40 target tokens.
TEST(RankBalanceNote, SaysWhenTheRanksSharesDifferAndWhatBalancesThem) {
  std::vector<fathom::Example> examples;
  for (int i = 0; i < 40; ++i) examples.push_back(fathom::make_example({5, 6, 7}, {8, 9, 10}));
  const auto pairs = fathom::TokenPairs::from_examples(examples);
  const auto plan = fathom::plan_batches(pairs, 40);
  ASSERT_EQ(plan.size(), 4u);
  // 100 tokens: 3 batches (120 >= 100), split 2 and 1; 4 batches (140 tokens asked) balance.
  const std::string note = rank_balance_note(pairs, plan, 100, 2);
  EXPECT_NE(note.find("about 3 batches (40 target tokens each)"), std::string::npos) << note;
  EXPECT_NE(note.find("get 2 and 1"), std::string::npos) << note;
  EXPECT_NE(note.find("train.update_tokens = 140 would give each 2"), std::string::npos) << note;
  EXPECT_EQ(rank_balance_note(pairs, plan, 80, 2), "");   // 2 batches: one each
  EXPECT_EQ(rank_balance_note(pairs, plan, 100, 1), "");  // one process: nothing to share
  EXPECT_EQ(rank_balance_note(pairs, plan, 100, 3), "");  // 3 batches, one each
}

}  // namespace test_gradient_reduce
