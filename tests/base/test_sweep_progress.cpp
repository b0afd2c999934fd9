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
  EXPECT_DOUBLE_EQ(*experiments::sweep_eta_seconds(sample()), 660.0);
  experiments::SweepSnapshot fresh = sample();
  fresh.updates_done = fresh.updates_at_start;  // nothing done yet in this session
  EXPECT_FALSE(experiments::sweep_eta_seconds(fresh));
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
