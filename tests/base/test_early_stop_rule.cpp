// The early-stopping rule (core/train/early_stop.h) on hand-made validation curves: which
// validation is a new best (checkpoint_best), which restarts train.patience's count, and where
// patience runs out -- with and without train.patience_min_delta.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/train/early_stop.h"

namespace test_early_stop_rule {
using fathom::ValidationRecord;

struct Seen {
  std::vector<int64_t> new_bests;  // the updates record_validation called a new best
  int64_t stop = 0;                // the first update patience ran out at (0: never)
};

// Validations every 10 updates, from update 10, with these losses.
Seen replay(const std::vector<double>& losses, int patience, double min_delta,
            ValidationRecord* end = nullptr, const fathom::BestMetric& metric = {}) {
  ValidationRecord r;
  Seen seen;
  for (size_t i = 0; i < losses.size(); ++i) {
    const int64_t update = 10 * static_cast<int64_t>(i + 1);
    if (fathom::record_validation(r, update, losses[i], min_delta, metric))
      seen.new_bests.push_back(update);
    if (fathom::patience_exhausted(r, patience) && !seen.stop) seen.stop = update;
  }
  if (end) *end = r;
  return seen;
}

TEST(EarlyStopRule, WithoutAMinDeltaEveryLowerLossRestartsTheCount) {
  // 3.0, then a creep of 1e-4 per validation: each is a new best, so patience 2 never runs out
  // until the two equal values at the end (a tie is no improvement).
  const std::vector<double> losses = {3.0, 2.9999, 2.9998, 2.9997, 2.9997, 2.9997};
  ValidationRecord end;
  const Seen seen = replay(losses, 2, 0, &end);
  EXPECT_EQ(seen.new_bests, (std::vector<int64_t>{10, 20, 30, 40}));
  EXPECT_EQ(seen.stop, 60);
  EXPECT_DOUBLE_EQ(end.best, 2.9997);
  EXPECT_EQ(end.best_update, 40);
  EXPECT_EQ(end.improved_update, end.best_update);  // with no min_delta they are one
  EXPECT_EQ(end.validations_since_best, 2);
}

TEST(EarlyStopRule, AMinDeltaIgnoresACreepButCheckpointBestStillFollowsIt) {
  // The same creep with min_delta 1e-3: only update 10 is an improvement for patience; the count
  // runs 20, 30 and stops there. checkpoint_best still takes every lower loss.
  const std::vector<double> losses = {3.0, 2.9999, 2.9998, 2.9997, 2.9997, 2.9997};
  ValidationRecord end;
  const Seen seen = replay(losses, 2, 1e-3, &end);
  EXPECT_EQ(seen.new_bests, (std::vector<int64_t>{10, 20, 30, 40}));
  EXPECT_EQ(seen.stop, 30);
  EXPECT_DOUBLE_EQ(end.improved, 3.0);
  EXPECT_EQ(end.improved_update, 10);
  EXPECT_EQ(end.best_update, 40);
}

TEST(EarlyStopRule, AnImprovementIsMeasuredFromTheLastImprovementNotFromTheBest) {
  // min_delta 0.1: 2.95 and 2.91 are within 0.1 of 3.0 (no improvement, but new bests); 2.85 is
  // 0.15 below 3.0, the last improvement, though only 0.06 below the best 2.91: it restarts
  // the count. Then 2.80 is only 0.05 below 2.85: the count runs on to patience 3 at update 70.
  const std::vector<double> losses = {3.0, 2.95, 2.91, 2.85, 2.80, 2.90, 2.81, 2.5};
  ValidationRecord end;
  const Seen seen = replay(losses, 3, 0.1, &end);
  EXPECT_EQ(seen.new_bests, (std::vector<int64_t>{10, 20, 30, 40, 50, 80}));
  EXPECT_EQ(seen.stop, 70);
  EXPECT_DOUBLE_EQ(end.improved, 2.5);  // recorded on: the caller stops at the first
  EXPECT_EQ(end.validations_since_best, 0);
}

TEST(EarlyStopRule, ANanLossIsNeitherABestNorAnImprovement) {
  const Seen seen = replay({2.0, NAN, NAN}, 2, 0);
  EXPECT_EQ(seen.new_bests, (std::vector<int64_t>{10}));
  EXPECT_EQ(seen.stop, 30);
  EXPECT_EQ(replay({2.0, NAN, NAN}, 0, 0).stop, 0);  // patience 0: never
}

TEST(EarlyStopRule, TheTagSaysFromWhichLossAndByHowMuch) {
  ValidationRecord r;
  fathom::record_validation(r, 200, 1.25);
  fathom::record_validation(r, 210, 1.2);
  EXPECT_EQ(fathom::early_stop_text(r, 210, 1, 1000),
            "update 210: 0 validations since update 210 without a valid_loss below 1.2 "
            "(train.patience 1, train.max_updates 1000)");
  ValidationRecord d;
  fathom::record_validation(d, 200, 1.25, 0.1);
  fathom::record_validation(d, 210, 1.2, 0.1);
  EXPECT_EQ(fathom::early_stop_text(d, 210, 1, 1000, 0.1),
            "update 210: 1 validations since update 200 without a valid_loss below 1.25 - 0.1 "
            "(train.patience 1, train.patience_min_delta 0.1, train.max_updates 1000)");
}

TEST(EarlyStopRule, OnBleuHigherIsBetterAndTheMinDeltaIsInPoints) {
  // min_delta 0.3: 10 is the first; 12 is 2 above it (an improvement); 12.2 is a new best but
  // within 0.3 of 12; 12.5 is 0.5 above 12; then 12.4 and 12.3 run patience 2 out at 60.
  const fathom::BestMetric bleu = fathom::best_metric_named("valid_bleu");
  ASSERT_TRUE(bleu.higher_is_better);
  ValidationRecord end;
  const Seen seen = replay({10, 12, 12.2, 12.5, 12.4, 12.3}, 2, 0.3, &end, bleu);
  EXPECT_EQ(seen.new_bests, (std::vector<int64_t>{10, 20, 30, 40}));
  EXPECT_EQ(seen.stop, 60);
  EXPECT_DOUBLE_EQ(end.best, 12.5);
  EXPECT_EQ(end.improved_update, 40);
  // A BLEU of 0 is a first best like any finite value; a NaN never is.
  EXPECT_EQ(replay({0, NAN, 0}, 2, 0, nullptr, bleu).new_bests, (std::vector<int64_t>{10}));
  EXPECT_EQ(fathom::early_stop_text(end, 60, 2, 1000, 0.3, bleu),
            "update 60: 2 validations since update 40 without a valid_bleu above 12.5 + 0.3 "
            "(train.best_metric valid_bleu, train.patience 2, train.patience_min_delta 0.3, "
            "train.max_updates 1000)");
  EXPECT_FALSE(fathom::best_metric_named("valid_loss").higher_is_better);
  EXPECT_THROW(fathom::best_metric_named("test_bleu"), std::invalid_argument);
}

}  // namespace test_early_stop_rule
