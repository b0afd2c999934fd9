// Which kept checkpoints a final evaluation averages (db/averaged_checkpoints.h): the newest N,
// or the N best by the validation metric at their updates -- checked against choices made here
// by hand from a small curve with a tie and a checkpoint without a value -- and which of them
// train.keep_checkpoints keeps when it keeps the best.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <vector>

#include "db/averaged_checkpoints.h"

namespace test_averaged_checkpoints {
using fathom::db::checkpoints_to_average;
using fathom::db::KeptCheckpoint;
using fathom::db::retain_best;

std::vector<KeptCheckpoint> kept_at(const std::vector<int64_t>& updates) {
  std::vector<KeptCheckpoint> kept;
  for (int64_t u : updates) kept.push_back({u, "checkpoint_" + std::to_string(u) + ".pt"});
  return kept;
}

std::vector<int64_t> updates_of(const std::vector<KeptCheckpoint>& kept) {
  std::vector<int64_t> out;
  for (const auto& k : kept) {
    EXPECT_EQ(k.path, "checkpoint_" + std::to_string(k.update) + ".pt");  // rows stay whole
    out.push_back(k.update);
  }
  return out;
}

// valid_loss at each kept update: 20 and 40 tie for the lowest; 50 diverged (NaN); 60 was never
// validated.
const std::map<int64_t, double> kLoss = {{10, 3.0}, {20, 2.0}, {30, 2.5}, {40, 2.0}, {50, NAN}};
const std::vector<int64_t> kKept = {10, 20, 30, 40, 50, 60};

TEST(AveragedCheckpoints, TheLastAreTheNewestWhateverTheirValues) {
  EXPECT_EQ(updates_of(checkpoints_to_average(kept_at(kKept), 3, false, kLoss, false)),
            (std::vector<int64_t>{40, 50, 60}));
  EXPECT_EQ(updates_of(checkpoints_to_average(kept_at(kKept), 9, false, kLoss, false)), kKept);
}

TEST(AveragedCheckpoints, TheBestAreTheLowestLossOldestFirstTheLaterWinningATie) {
  EXPECT_EQ(updates_of(checkpoints_to_average(kept_at(kKept), 3, true, kLoss, false)),
            (std::vector<int64_t>{20, 30, 40}));
  EXPECT_EQ(updates_of(checkpoints_to_average(kept_at(kKept), 2, true, kLoss, false)),
            (std::vector<int64_t>{20, 40}));
  // One of two equal values: the checkpoint trained longer.
  EXPECT_EQ(updates_of(checkpoints_to_average(kept_at(kKept), 1, true, kLoss, false)),
            (std::vector<int64_t>{40}));
}

TEST(AveragedCheckpoints, AHigherIsBetterMetricTakesTheHighest) {
  // The same numbers read as BLEU: 3.0 at 10, then 2.5 at 30.
  EXPECT_EQ(updates_of(checkpoints_to_average(kept_at(kKept), 2, true, kLoss, true)),
            (std::vector<int64_t>{10, 30}));
}

TEST(AveragedCheckpoints, CheckpointsWithoutAFiniteValueAreNoCandidates) {
  // Six kept, asked for all: the diverged 50 and the unvalidated 60 are left out.
  EXPECT_EQ(updates_of(checkpoints_to_average(kept_at(kKept), 6, true, kLoss, false)),
            (std::vector<int64_t>{10, 20, 30, 40}));
  EXPECT_TRUE(checkpoints_to_average(kept_at(kKept), 3, true, {}, false).empty());
}

// kLoss with one more validation: `update` at `value`.
std::map<int64_t, double> with(int64_t update, double value) {
  auto loss = kLoss;
  loss[update] = value;
  return loss;
}

TEST(AveragedCheckpoints, KeepingTheBestRetiresTheWorstOnceANewOneRanksAmongThem) {
  // 10 (3.0), 20 (2.0), new 30 (2.5): 20 and 30 are the best two.
  auto r = retain_best(kept_at({10, 20}), 30, 2, kLoss, false);
  EXPECT_TRUE(r.write);
  EXPECT_EQ(r.retired, (std::vector<int64_t>{10}));
  // A tie goes to the later: the new 40 (2.0) displaces 30 (2.5), and with one kept, 20 (2.0).
  r = retain_best(kept_at({20, 30}), 40, 2, kLoss, false);
  EXPECT_TRUE(r.write);
  EXPECT_EQ(r.retired, (std::vector<int64_t>{30}));
  r = retain_best(kept_at({20}), 40, 1, kLoss, false);
  EXPECT_TRUE(r.write);
  EXPECT_EQ(r.retired, (std::vector<int64_t>{20}));
  // Read as BLEU (higher is better), 30's 2.5 displaces 20's 2.0 instead.
  r = retain_best(kept_at({10, 20}), 30, 2, kLoss, true);
  EXPECT_EQ(r.retired, (std::vector<int64_t>{20}));
}

TEST(AveragedCheckpoints, KeepingTheBestDoesNotWriteOneWorseThanEveryKeptOne) {
  const auto r = retain_best(kept_at({20, 30}), 45, 2, with(45, 2.7), false);
  EXPECT_FALSE(r.write);
  EXPECT_TRUE(r.retired.empty());
}

TEST(AveragedCheckpoints, KeepingTheBestRetiresThoseWithoutAValueFirst) {
  // The diverged 50 goes before 10 (3.0), worse than the new 60 (2.2) as it is.
  auto r = retain_best(kept_at({10, 50}), 60, 2, with(60, 2.2), false);
  EXPECT_TRUE(r.write);
  EXPECT_EQ(r.retired, (std::vector<int64_t>{50}));
  // A new one without a value yet (its valid_bleu cut short) is written, beside the best
  // keep - 1 of the others; it ranks at the next keep point.
  r = retain_best(kept_at({10, 20, 30}), 60, 2, kLoss, false);
  EXPECT_TRUE(r.write);
  EXPECT_EQ(r.retired, (std::vector<int64_t>{10, 30}));
}

}  // namespace test_averaged_checkpoints
