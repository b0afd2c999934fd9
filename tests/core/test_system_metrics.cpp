// System metrics per run (core/train/system_metrics.h, issue 59.1): a trained run has the
// sys.* rows at exactly its log points, with values a process can have (resident memory below
// its peak, at least the trainer's own thread, CPU time non-negative), the CUDA rows only on a
// CUDA device; and the sampler alone returns the process's figures.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "core/train/system_metrics.h"
#include "db/metric_names.h"
#include "tests/support/test_device.h"
#include "tests/support/trainer_test_fixture.h"

namespace fathom {
namespace test_system_metrics {
using testing::steps;
using testing::tiny_config;
using testing::TrainerTest;
namespace m = db::metric;

TEST_F(TrainerTest, SystemMetricsAreLoggedAtEveryLogPoint) {
  const RunConfig config = tiny_config();  // 25 updates, log every 10
  const int64_t run = new_run(config);
  ASSERT_EQ(train(config, run).status, "finished");
  const std::vector<int64_t> log_points = {10, 20, 25};
  for (const std::string& name : {m::kSysCpuPercent, m::kSysRss, m::kSysRssPeak, m::kSysThreads})
    EXPECT_EQ(steps(*store_, run, name), log_points) << name;
  const auto rss = testing::series(*store_, run, m::kSysRss);
  const auto peak = testing::series(*store_, run, m::kSysRssPeak);
  const auto threads = testing::series(*store_, run, m::kSysThreads);
  const auto cpu = testing::series(*store_, run, m::kSysCpuPercent);
  for (int64_t step : log_points) {
    EXPECT_GT(rss.at(step), 10.0) << "a process with LibTorch loaded holds more than 10 MiB";
    EXPECT_GE(peak.at(step), rss.at(step));
    EXPECT_GE(threads.at(step), 1);
    EXPECT_GE(cpu.at(step), 0);
  }
  // The peak never falls.
  EXPECT_LE(peak.at(10), peak.at(20));
  EXPECT_LE(peak.at(20), peak.at(25));
  const bool cuda = test_device().is_cuda();
  EXPECT_EQ(steps(*store_, run, m::kSysCudaReserved).empty(), !cuda);
}

TEST(SystemMetrics, SampleNamesOnlySystemMetricsAndTheProcessFigures) {
  SystemMetrics sampler(torch::Device(torch::kCPU));
  std::map<std::string, double> got;
  for (const auto& [name, value] : sampler.sample()) {
    EXPECT_TRUE(m::is_system_metric(name)) << name;
    got[name] = value;
  }
  ASSERT_EQ(got.size(), 4u);  // on the CPU: no allocator, no NVML rows
  const auto now = read_process_stats();
  ASSERT_TRUE(now);
  EXPECT_EQ(got.at(m::kSysThreads), static_cast<double>(now->threads));
  EXPECT_NEAR(got.at(m::kSysRssPeak), now->rss_peak_mib, 1.0);
}

}  // namespace test_system_metrics
}  // namespace fathom
