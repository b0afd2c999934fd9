// The learning-rate schedules (base/config/lr_schedule.h) against values worked out by hand
// from their formulas, their shared invariants, and the config rules that keep a schedule's
// keys meaningful. Torch-free.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "base/config/config.h"
#include "base/config/config_io.h"
#include "base/config/lr_schedule.h"
#include "base/util/error.h"
#include "tests/support/config_test_helpers.h"
#include "tests/support/input_error.h"

namespace fathom {
namespace test_lr_schedule {

using fathom::testing::expect_input_error;
using fathom::testing::synthetic_config;

TrainConfig schedule(const std::string& name, double peak, int warmup, int max_updates,
                     double min_ratio = 0.0) {
  TrainConfig t;
  t.schedule = name;
  t.lr = peak;
  t.warmup = warmup;
  t.max_updates = max_updates;
  t.min_lr_ratio = min_ratio;
  return t;
}

// Linear warmup from ~0 to the peak over `warmup` updates, then peak * sqrt(warmup / u).
// Fails with an off-by-one in the warmup, a wrong decay exponent, or warmup 0 dividing by 0.
TEST(LrSchedule, InverseSqrtValues) {
  const TrainConfig t = schedule("inverse_sqrt", 1e-3, 4000, 100000);
  EXPECT_NEAR(learning_rate(t, 1), 2.5e-7, 1e-15);
  EXPECT_NEAR(learning_rate(t, 2000), 5e-4, 1e-15);
  EXPECT_NEAR(learning_rate(t, 4000), 1e-3, 1e-15);
  EXPECT_NEAR(learning_rate(t, 16000), 5e-4, 1e-15);
  EXPECT_NEAR(learning_rate(t, 4001), 1e-3 * std::sqrt(4000.0 / 4001.0), 1e-15);
  const TrainConfig flat = schedule("inverse_sqrt", 3e-4, 0, 100000);
  for (int64_t u : {1, 10, 1000000}) EXPECT_DOUBLE_EQ(learning_rate(flat, u), 3e-4);
  // Continuous at the peak and strictly decreasing after it.
  EXPECT_GT(learning_rate(t, 4000), learning_rate(t, 4001));
  EXPECT_GT(learning_rate(t, 4000), learning_rate(t, 3999));
}

// Warmup 10 of 110 updates, peak 1e-3, ending at 10 % of it: the decay's progress p is
// (u - 10) / 100. linear: 1e-4 + 9e-4 (1 - p); cosine: 1e-4 + 9e-4 (1 + cos(pi p)) / 2 --
// both 5.5e-4 halfway, cosine 1e-4 + 9e-4 x 0.8535534 = 8.681980e-4 a quarter of the way.
// Fails when the decay counts from update 0 instead of the warmup's end, misses min_lr_ratio,
// or stops one update short of the minimum.
TEST(LrSchedule, LinearAndCosineDecayFromTheWarmupToTheMinimumAtTheLastUpdate) {
  const TrainConfig lin = schedule("linear", 1e-3, 10, 110, 0.1);
  EXPECT_NEAR(learning_rate(lin, 5), 5e-4, 1e-15);  // warmup
  EXPECT_NEAR(learning_rate(lin, 10), 1e-3, 1e-15);
  EXPECT_NEAR(learning_rate(lin, 11), 1e-4 + 9e-4 * 0.99, 1e-15);
  EXPECT_NEAR(learning_rate(lin, 60), 5.5e-4, 1e-15);
  EXPECT_NEAR(learning_rate(lin, 110), 1e-4, 1e-15);

  const TrainConfig cos = schedule("cosine", 1e-3, 10, 110, 0.1);
  EXPECT_NEAR(learning_rate(cos, 10), 1e-3, 1e-15);
  EXPECT_NEAR(learning_rate(cos, 35), 8.6819805153e-4, 1e-13);
  EXPECT_NEAR(learning_rate(cos, 60), 5.5e-4, 1e-15);
  EXPECT_NEAR(learning_rate(cos, 85), 1e-4 + 9e-4 * (1 - 0.8535533906), 1e-13);
  EXPECT_NEAR(learning_rate(cos, 110), 1e-4, 1e-15);
  // No warmup: the first update is already on the decay (p = 1/110).
  const TrainConfig cold = schedule("linear", 1e-3, 0, 110);
  EXPECT_NEAR(learning_rate(cold, 1), 1e-3 * 109.0 / 110.0, 1e-15);
}

// wsd over 100 updates with decay_fraction 0.2: the peak through update 80, then p =
// (u - 80) / 20 over updates 81..100 along the shape. At u = 90 (p = 1/2): sqrt 1 - 0.7071068,
// linear and cosine 0.5; at u = 81 (p = 1/20) sqrt gives 1 - 0.2236068. Fails when the
// stable phase is off by one, the shape key is ignored, or the minimum is missed.
TEST(LrSchedule, WarmupStableDecayHoldsThePeakThenFallsAlongItsShape) {
  TrainConfig t = schedule("wsd", 1e-3, 10, 100);
  t.decay_fraction = 0.2;
  EXPECT_EQ(decay_start(t), 81);
  EXPECT_NEAR(learning_rate(t, 5), 5e-4, 1e-15);
  for (int64_t u : {10, 50, 80}) EXPECT_DOUBLE_EQ(learning_rate(t, u), 1e-3) << u;
  EXPECT_NEAR(learning_rate(t, 81), 1e-3 * (1 - 0.2236067977), 1e-13);
  EXPECT_NEAR(learning_rate(t, 90), 1e-3 * (1 - 0.7071067812), 1e-13);
  EXPECT_NEAR(learning_rate(t, 100), 0.0, 1e-18);
  t.decay_shape = "linear";
  EXPECT_NEAR(learning_rate(t, 90), 5e-4, 1e-15);
  t.decay_shape = "cosine";
  EXPECT_NEAR(learning_rate(t, 90), 5e-4, 1e-15);
  t.min_lr_ratio = 0.5;
  EXPECT_NEAR(learning_rate(t, 100), 5e-4, 1e-15);
  // A share too small for one update still decays the last one.
  t.decay_fraction = 0.001;
  EXPECT_EQ(decay_start(t), 100);
  EXPECT_DOUBLE_EQ(learning_rate(t, 99), 1e-3);
}

// Every schedule: the warmup's last update is the peak, nothing exceeds the peak, after the
// warmup the rate never rises, and a decaying schedule never goes below its minimum.
TEST(LrSchedule, EveryScheduleRisesToThePeakThenNeverRisesAgain) {
  for (const std::string& name : lr_schedule_names()) {
    const TrainConfig t = schedule(name, 2e-3, 30, 300, 0.25);
    EXPECT_DOUBLE_EQ(learning_rate(t, 30), 2e-3) << name;
    double previous = 0;
    for (int64_t u = 1; u <= 300; ++u) {
      const double lr = learning_rate(t, u);
      EXPECT_LE(lr, 2e-3 * (1 + 1e-15)) << name << " " << u;
      if (u <= 30) {
        EXPECT_GT(lr, previous) << name << " " << u;
      } else {
        EXPECT_LE(lr, previous) << name << " " << u;
      }
      if (u > 30 && decay_start(t) > 0) {
        EXPECT_GE(lr, 0.5e-3 * (1 - 1e-12)) << name << " " << u;
      }
      previous = lr;
    }
  }
}

// The updates a schedule is shown at: ascending, from 1 to the last, every corner among them
// (the warmup's end, the decay's first update and the one before), about `count` of them.
TEST(LrSchedule, TheUpdatesShownIncludeEveryCorner) {
  TrainConfig t = schedule("wsd", 1e-3, 37, 1000);
  t.decay_fraction = 0.25;  // the decay starts at update 751
  const std::vector<int64_t> shown = schedule_updates(t, 20);
  EXPECT_TRUE(std::is_sorted(shown.begin(), shown.end()));
  EXPECT_EQ(shown.front(), 1);
  EXPECT_EQ(shown.back(), 1000);
  for (int64_t corner : {37, 750, 751})
    EXPECT_TRUE(std::count(shown.begin(), shown.end(), corner)) << corner;
  EXPECT_LE(shown.size(), 25u);
  EXPECT_GE(shown.size(), 20u);
  // A run shorter than `count` shows every update.
  EXPECT_EQ(schedule_updates(schedule("constant", 1e-3, 0, 5), 20),
            (std::vector<int64_t>{1, 2, 3, 4, 5}));
}

// A key of another schedule is refused where it was set (it would be silently ignored), and
// a warmup that leaves no update to decay in is refused naming train.warmup.
TEST(LrSchedule, AnotherSchedulesKeyOrAWarmupPastTheDecayIsRefused) {
  InputError e = expect_input_error([] {
    check_config(synthetic_config({"train:", "  min_lr_ratio: 0.1"}));  // inverse_sqrt
  });
  EXPECT_EQ(e.field(), "train.min_lr_ratio");
  EXPECT_EQ(e.line(), 4);
  EXPECT_NE(std::string(e.what()).find("inverse_sqrt"), std::string::npos) << e.what();

  e = expect_input_error([] {
    check_config(synthetic_config({"train:", "  schedule: cosine", "  decay_shape: linear"}));
  });
  EXPECT_EQ(e.field(), "train.decay_shape");

  e = expect_input_error([] {
    check_config(
        synthetic_config({"train:", "  schedule: cosine", "  warmup: 50", "  max_updates: 50"}));
  });
  EXPECT_EQ(e.field(), "train.warmup");
  EXPECT_NE(std::string(e.what()).find("below 50"), std::string::npos) << e.what();

  // wsd: 100 updates, the last 20 decay: a warmup of 81 reaches into the decay, 80 does not.
  e = expect_input_error([] {
    check_config(synthetic_config({"train:", "  schedule: wsd", "  warmup: 81",
                                   "  max_updates: 100", "  decay_fraction: 0.2"}));
  });
  EXPECT_EQ(e.field(), "train.warmup");
  EXPECT_NO_THROW(check_config(synthetic_config(
      {"train:", "  schedule: wsd", "  warmup: 80", "  max_updates: 100", "  min_lr_ratio: 0.1"})));

  e = expect_input_error([] { check_config(synthetic_config({"train:", "  schedule: cosin"})); });
  EXPECT_EQ(e.field(), "train.schedule");
}

}  // namespace test_lr_schedule
}  // namespace fathom
