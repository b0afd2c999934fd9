// db/system_summary.h: a run's sys.* curves summed up by hand-computed last, mean and maximum,
// in the presentation's order (memory before threads), training curves left out.
#include <gtest/gtest.h>

#include "db/metric_names.h"
#include "db/store.h"
#include "db/system_summary.h"
#include "tests/support/temp_dir.h"

namespace fathom {
namespace test_system_summary {
namespace m = db::metric;

TEST(SystemSummary, LastMeanAndMaxOfEachSystemMetricInOrder) {
  testing::TempDir dir;
  auto store = db::Store::open((dir.path() / "runs.db").string());
  db::NewRun r;
  r.name = "r";
  const int64_t run = store.create_run(r);
  store.write_metrics(run, {{10, m::kSysThreads, 4, 0},
                            {20, m::kSysThreads, 6, 0},
                            {10, m::kSysRss, 100, 0},
                            {20, m::kSysRss, 400, 0},
                            {30, m::kSysRss, 250, 0},
                            {10, m::kTrainLoss, 3, 0}});
  const auto s = db::system_summary(store, run);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].name, m::kSysRss);  // the presentation lists memory before threads
  EXPECT_EQ(s[0].unit, "MiB");
  EXPECT_EQ(s[0].samples, 3u);
  EXPECT_DOUBLE_EQ(s[0].last, 250);
  EXPECT_DOUBLE_EQ(s[0].mean, 250);  // (100 + 400 + 250) / 3
  EXPECT_DOUBLE_EQ(s[0].max, 400);
  EXPECT_EQ(s[1].name, m::kSysThreads);
  EXPECT_DOUBLE_EQ(s[1].mean, 5);
  EXPECT_DOUBLE_EQ(s[1].max, 6);
  db::NewRun other;
  other.name = "old";
  EXPECT_TRUE(db::system_summary(store, store.create_run(other)).empty());
}

}  // namespace test_system_summary
}  // namespace fathom
