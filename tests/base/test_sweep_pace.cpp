// A sweep's pace from its runs' logged losses (experiments/sweep_pace.h), read from a real store:
// a resumed sweep's before its first new update (the median of its ended runs' seconds per
// update, running and queued runs left out, only the latest ended runs read), and the time a
// sweep has left at its running runs' summed rate.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "db/store.h"
#include "experiments/sweep_pace.h"
#include "tests/support/temp_dir.h"

namespace test_sweep_pace {
using namespace fathom;

// A run of sweep "s" in `status` of `max_updates` that logged train_loss every 10 updates,
// `pace` s an update, its heartbeat at its last point.
int64_t run_at_pace(db::Store& store, const std::string& status, double pace, int points,
                    int max_updates = 1000) {
  db::NewRun r;
  r.name = "s/" + std::to_string(pace) + status;
  r.sweep = "s";
  r.status = status;
  r.config_yaml = "name: x\n";
  r.config_json =
      R"({"train": {"log_every": 10, "max_updates": )" + std::to_string(max_updates) + "}}";
  const int64_t id = store.create_run(r);
  std::vector<db::MetricRow> rows;
  for (int i = 1; i <= points; ++i)
    rows.push_back({10 * i, "train_loss", 3.0, 1000.0 + 10 * i * pace});
  store.write_metrics(id, rows);
  if (status == "running") store.heartbeat(id, 10 * points);
  return id;
}

TEST(EndedRunsPace, IsTheMedianOfTheEndedRunsRates) {
  const fathom::testing::TempDir scratch;
  auto store = db::Store::open(scratch.file("runs.db"));
  run_at_pace(store, "finished", 0.2, 8);
  run_at_pace(store, "diverged", 0.9, 4);  // diverged early: its few intervals still count
  run_at_pace(store, "finished", 0.5, 8);
  run_at_pace(store, "finished", 7.0, 1);  // one point: no interval, no pace
  run_at_pace(store, "running", 50.0, 8);  // not ended: this session's rate will say
  run_at_pace(store, "queued", 60.0, 0);
  const auto states = store.list_run_states("s");
  ASSERT_EQ(states.size(), 6u);
  // Paces 0.2, 0.9, 0.5 -> median 0.5.
  EXPECT_DOUBLE_EQ(*experiments::ended_runs_seconds_per_update(store, states), 0.5);
  // The three latest ended runs: the one without a pace, 0.5 and 0.9 -> (0.5 + 0.9) / 2; the
  // two latest: 0.5 alone (the first, 0.2, is no longer read).
  EXPECT_DOUBLE_EQ(*experiments::ended_runs_seconds_per_update(store, states, 3), 0.7);
  EXPECT_DOUBLE_EQ(*experiments::ended_runs_seconds_per_update(store, states, 2), 0.5);
}

TEST(EndedRunsPace, NoneForASweepWithoutEndedRuns) {
  const fathom::testing::TempDir scratch;
  auto store = db::Store::open(scratch.file("runs.db"));
  run_at_pace(store, "running", 1.0, 8);
  run_at_pace(store, "queued", 1.0, 0);
  EXPECT_FALSE(experiments::ended_runs_seconds_per_update(store, store.list_run_states("s")));
}

// Two running runs at 0.5 and 0.25 s an update make 2 + 4 = 6 updates a second together; they
// have 1000 - 100 and 1000 - 200 updates left, the queued run 400 and the ended ones none:
// 2,100 updates, 350 s. A running run without two logged losses adds its updates, no pace.
TEST(SweepTimeLeft, IsTheUpdatesLeftOverTheRunningRunsSummedRate) {
  const fathom::testing::TempDir scratch;
  auto store = db::Store::open(scratch.file("runs.db"));
  run_at_pace(store, "finished", 9.0, 100);
  run_at_pace(store, "running", 0.5, 10);
  run_at_pace(store, "running", 0.25, 20);
  run_at_pace(store, "queued", 0, 0, 400);
  const auto left = experiments::sweep_time_left(store, "s", store.list_runs("s"), db::unix_now());
  ASSERT_TRUE(left);
  EXPECT_EQ(left->updates_left, 2100);
  EXPECT_EQ(left->paced_runs, 2);
  EXPECT_DOUBLE_EQ(left->seconds, 350.0);
  run_at_pace(store, "running", 0, 1, 400);  // one loss at update 10: 390 more, no pace
  const auto more = experiments::sweep_time_left(store, "s", store.list_runs("s"), db::unix_now());
  EXPECT_EQ(more->updates_left, 2490);
  EXPECT_EQ(more->paced_runs, 2);
  EXPECT_DOUBLE_EQ(more->seconds, 415.0);
}

// What the Runs tab reads each poll: the sweep's runs by state (other sweeps' passed over) and
// its time left from the rates and max_updates it was handed -- a run without a max_updates
// adds nothing left, a queued one no pace.
TEST(SweepStanding, CountsTheSweepsRunsAndSumsTheRatesItIsGiven) {
  std::vector<db::RunRecord> runs(6);
  const char* statuses[] = {"finished", "running", "running", "queued", "queued", "running"};
  for (int i = 0; i < 6; ++i) {
    runs[i].id = i + 1;
    runs[i].sweep = i < 5 ? "s" : "other";
    runs[i].status = statuses[i];
    runs[i].updates = 100 * i;
  }
  // Runs 2 and 3 at 0.5 and 1 s an update (3 updates a second); 1000 - 100, 900 - 200 and
  // 800 - 300 left (run 5 has no max_updates): 2,100, 700 s; run 6 is another sweep's.
  const auto standing = experiments::sweep_standing(
      runs, "s", {{2, 1000}, {3, 900}, {4, 800}, {6, 1000}}, {{2, 0.5}, {3, 1.0}, {6, 0.1}}, 0);
  EXPECT_EQ(standing.sweep, "s");
  EXPECT_EQ(standing.runs, 5);
  EXPECT_EQ(standing.ended, 1);
  EXPECT_EQ(standing.running, 2);
  EXPECT_EQ(standing.queued, 2);
  ASSERT_TRUE(standing.left);
  EXPECT_EQ(standing.left->updates_left, 900 + 700 + 500);
  EXPECT_EQ(standing.left->paced_runs, 2);
  EXPECT_DOUBLE_EQ(standing.left->seconds, 700.0);
  EXPECT_FALSE(experiments::sweep_standing(runs, "s", {{2, 1000}}, {}, 0).left);  // no rate yet
}

// A running run whose worker has been silent past the heartbeat timeout (180 s) is lost: its
// 800 updates are still to make, its last pace (4 updates a second) is not counted. With the
// run beside it at 2 a second and a queued one of 1,000: 900 + 800 + 1,000 = 2,700 updates at 2
// a second, 1,350 s (450 s had the lost run's pace counted).
TEST(SweepStanding, ALostRunsUpdatesAreLeftButNotItsPace) {
  const double now = 1.7e9;
  std::vector<db::RunRecord> runs(3);
  const char* statuses[] = {"running", "running", "queued"};
  for (int i = 0; i < 3; ++i) {
    runs[i].id = i + 1;
    runs[i].sweep = "s";
    runs[i].status = statuses[i];
  }
  runs[0].updates = 100;
  runs[0].heartbeat_at = now - 5;
  runs[1].updates = 200;
  runs[1].heartbeat_at = now - 600;
  const auto standing = experiments::sweep_standing(runs, "s", {{1, 1000}, {2, 1000}, {3, 1000}},
                                                    {{1, 0.5}, {2, 0.25}}, now);
  EXPECT_EQ(standing.running, 1);
  EXPECT_EQ(standing.lost, 1);
  EXPECT_EQ(standing.queued, 1);
  ASSERT_TRUE(standing.left);
  EXPECT_EQ(standing.left->updates_left, 2700);
  EXPECT_EQ(standing.left->paced_runs, 1);
  EXPECT_DOUBLE_EQ(standing.left->seconds, 1350.0);
  // Every running run lost: nothing trains now, no time left to tell.
  runs[0].heartbeat_at = now - 600;
  EXPECT_FALSE(experiments::sweep_standing(runs, "s", {{1, 1000}, {2, 1000}, {3, 1000}},
                                           {{1, 0.5}, {2, 0.25}}, now)
                   .left);
}

TEST(SweepTimeLeft, NoneWithoutARunningPaceOrUpdatesLeft) {
  const fathom::testing::TempDir scratch;
  auto store = db::Store::open(scratch.file("runs.db"));
  run_at_pace(store, "queued", 0, 0);
  run_at_pace(store, "running", 0, 1);  // its first loss only
  EXPECT_FALSE(experiments::sweep_time_left(store, "s", store.list_runs("s"), db::unix_now()));
  const fathom::testing::TempDir other;
  auto ended = db::Store::open(other.file("runs.db"));
  run_at_pace(ended, "finished", 0.5, 100, 1000);
  EXPECT_FALSE(experiments::sweep_time_left(ended, "s", ended.list_runs("s"), db::unix_now()));
}

}  // namespace test_sweep_pace
