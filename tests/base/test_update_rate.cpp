// The rate a running run trains at now (db/update_rate.h), from its logged losses' wall times:
// hand-made series where the time since the first start gives the wrong answer -- a run
// resumed after hours in the queue, a fork whose first points are its parent's -- and the
// store's last points of a run as the runs view reads them.
#include <gtest/gtest.h>

#include <vector>

#include "db/store.h"
#include "db/update_rate.h"
#include "tests/support/temp_dir.h"

namespace test_update_rate {
using fathom::db::MetricPoint;

TEST(SecondsPerUpdate, IsTheMedianIntervalSoAPauseDoesNotCount) {
  // 2 s an update, then 3 hours queued after a preemption at update 30, then 2 s again.
  const std::vector<MetricPoint> resumed = {{10, 5.0, 100},
                                            {20, 4.8, 120},
                                            {30, 4.6, 140},
                                            {40, 4.5, 140 + 10800 + 20},
                                            {50, 4.4, 10980}};
  // Intervals: 2, 2, 1082, 2 s an update -- the median of the four is 2.
  EXPECT_DOUBLE_EQ(*fathom::db::seconds_per_update(resumed), 2.0);
  // Updates over the time since the first point would say (50 - 10) / 10880 s: 272 s each.
  // An even count's median is the mean of the middle two: 1, 3 -> 2.
  EXPECT_DOUBLE_EQ(*fathom::db::seconds_per_update({{0, 1, 0}, {10, 1, 10}, {20, 1, 40}}), 2.0);
  EXPECT_DOUBLE_EQ(*fathom::db::seconds_per_update({{0, 1, 0}, {10, 1, 10}}), 1.0);
}

TEST(SecondsPerUpdate, NeedsTwoPointsApartInStepsAndTime) {
  EXPECT_FALSE(fathom::db::seconds_per_update({}));
  EXPECT_FALSE(fathom::db::seconds_per_update({{10, 1, 5}}));
  EXPECT_FALSE(fathom::db::seconds_per_update({{10, 1, 5}, {10, 1, 6}}));  // same update
  EXPECT_FALSE(fathom::db::seconds_per_update({{10, 1, 5}, {20, 1, 5}}));  // same second
}

// A fork at its parent's update 5,000, logging every 50: the store's last six train_loss points
// (five intervals) are read, of which the fork's own three intervals at 0.5 s an update
// outvote the jump from the parent's last point.
TEST(RecentSecondsPerUpdate, ReadsTheRunsLastLoggedIntervals) {
  const fathom::testing::TempDir scratch;
  auto store = fathom::db::Store::open(scratch.file("runs.db"));
  fathom::db::NewRun r;
  r.name = "fork";
  r.config_yaml = "name: fork\n";
  r.config_json = R"({"train": {"log_every": 50, "max_updates": 10000}})";
  const int64_t id = store.create_run(r);
  std::vector<fathom::db::MetricRow> rows;
  for (int64_t step = 4800; step <= 5000; step += 50)  // the parent's, a day earlier
    rows.push_back({step, "train_loss", 3.0, 1000.0 + 0.3 * static_cast<double>(step - 4800)});
  for (int64_t step = 5050; step <= 5200; step += 50)
    rows.push_back({step, "train_loss", 2.9, 90000.0 + 0.5 * static_cast<double>(step - 5050)});
  store.write_metrics(id, rows);
  const fathom::db::RunRecord run = *store.find_run(std::to_string(id));
  EXPECT_EQ(fathom::db::log_every_of(run), 50);
  // Points 4950 .. 5200: intervals 0.3, (jump), 0.5, 0.5, 0.5 s an update -> median 0.5.
  EXPECT_DOUBLE_EQ(*fathom::db::recent_seconds_per_update(store, run), 0.5);
}

}  // namespace test_update_rate
