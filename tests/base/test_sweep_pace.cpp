// A resumed sweep's pace before its first new update (experiments/sweep_pace.h): the median of
// its ended runs' logged seconds per update, read from a real store, with running and queued
// runs left out and only the latest ended runs read.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "db/store.h"
#include "experiments/sweep_pace.h"
#include "tests/support/temp_dir.h"

namespace test_sweep_pace {
using namespace fathom;

// A run of sweep "s" in `status` that logged train_loss every 10 updates, `pace` s an update.
int64_t run_at_pace(db::Store& store, const std::string& status, double pace, int points) {
  db::NewRun r;
  r.name = "s/" + std::to_string(pace) + status;
  r.sweep = "s";
  r.status = status;
  r.config_yaml = "name: x\n";
  r.config_json = R"({"train": {"log_every": 10}})";
  const int64_t id = store.create_run(r);
  std::vector<db::MetricRow> rows;
  for (int i = 1; i <= points; ++i)
    rows.push_back({10 * i, "train_loss", 3.0, 1000.0 + 10 * i * pace});
  store.write_metrics(id, rows);
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

}  // namespace test_sweep_pace
