// The sweep status display: ETA from this session's update rate, counts, per-run lines.
#include <gtest/gtest.h>

#include "experiments/sweep_progress.h"

namespace test_sweep_progress {
using namespace fathom;

experiments::SweepSnapshot sample() {
  experiments::SweepSnapshot s;
  s.sweep = "depth";
  s.runs = 10;
  s.finished = 2;
  s.diverged = 1;
  s.queued = 5;
  s.running = {{12, "depth/layers=18,norm=post", 230, 500, 3.21449, ""},
               {13, "depth/layers=18,norm=pre", 40, 500, std::nullopt, "cuda:1"}};
  s.updates_total = 5000;
  s.updates_at_start = 200;  // resumed: 200 updates were done before this session
  s.updates_done = 1700;
  s.elapsed_s = 300;  // 1500 updates in 300 s -> 5 per second
  return s;
}

TEST(SweepProgress, EtaFromThisSessionsRate) {
  // (5000 - 1700) updates left at 5 updates/s.
  EXPECT_DOUBLE_EQ(experiments::sweep_eta(sample())->seconds, 660.0);
  EXPECT_FALSE(experiments::sweep_eta(sample())->from_ended_runs);
  experiments::SweepSnapshot fresh = sample();
  fresh.updates_done = fresh.updates_at_start;  // nothing done yet in this session
  EXPECT_FALSE(experiments::sweep_eta(fresh));
}

// A resumed sweep before its first new update: the ended runs took 0.4 s an update, and the two
// running runs share the 3,500 updates left -- 3500 * 0.4 / 2 = 700 s, shown as a guess.
TEST(SweepProgress, EtaBeforeThisSessionsFirstUpdateIsTheEndedRunsPace) {
  experiments::SweepSnapshot resumed = sample();
  resumed.updates_done = resumed.updates_at_start = 1500;
  resumed.ended_seconds_per_update = 0.4;
  const auto eta = experiments::sweep_eta(resumed);
  ASSERT_TRUE(eta);
  EXPECT_DOUBLE_EQ(eta->seconds, 700.0);
  EXPECT_TRUE(eta->from_ended_runs);
  EXPECT_NE(experiments::render_sweep_progress(resumed, 200)[0].find("| ETA ~11m40s"),
            std::string::npos);
  // No run running yet (workers still starting): no one to share the work, no guess.
  resumed.running.clear();
  EXPECT_FALSE(experiments::sweep_eta(resumed));
  // Once this session has made updates, its own rate wins: 100 updates in 300 s.
  experiments::SweepSnapshot moving = sample();
  moving.ended_seconds_per_update = 0.4;
  moving.updates_at_start = 1600;
  EXPECT_DOUBLE_EQ(experiments::sweep_eta(moving)->seconds, 3300.0 * 3.0);
  EXPECT_FALSE(experiments::sweep_eta(moving)->from_ended_runs);
  // A resumed run restarting from an earlier checkpoint (its updates go back): still the guess.
  moving.updates_done = 1550;
  EXPECT_TRUE(experiments::sweep_eta(moving)->from_ended_runs);
}

TEST(SweepProgress, SummaryAndOneLinePerRunningRun) {
  const auto lines = experiments::render_sweep_progress(sample(), 200);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0],
            "sweep depth: 3/10 ended (2 finished, 1 diverged) | 2 running | 5 queued | 5m00s | ETA "
            "11m00s");
  EXPECT_NE(lines[1].find("#12"), std::string::npos);
  EXPECT_NE(lines[1].find("230/500"), std::string::npos);
  EXPECT_NE(lines[1].find("loss 3.214"), std::string::npos);
  EXPECT_NE(lines[1].find("depth/layers=18,norm=post"), std::string::npos);
  EXPECT_NE(lines[2].find("[cuda:1]"), std::string::npos);
  for (const auto& line : experiments::render_sweep_progress(sample(), 40))
    EXPECT_LE(line.size(), 40u);
}

}  // namespace test_sweep_progress
