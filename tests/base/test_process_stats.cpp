// The system metrics' torch-free parts (base/util/process_stats.h, base/util/nvml.h): the
// /proc parsers on text written here (a command name holding ") " and spaces), this process's
// own figures against what it just did (a thread started, memory touched, CPU burnt), and
// which NVML device CUDA's index is under $CUDA_VISIBLE_DEVICES.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "base/util/nvml.h"
#include "base/util/process_stats.h"

namespace fathom {
namespace test_process_stats {

// Fields after the name: state(3) ppid pgrp session tty_nr tpgid flags minflt cminflt majflt
// cmajflt(13) utime(14)=250 stime(15)=150; at 100 ticks a second: 4.0 s.
TEST(ProcessStats, StatLineCountsFieldsAfterTheLastParenthesis) {
  const std::string stat = "4242 (my (odd) prog) S 1 2 3 0 -1 4194560 10 0 0 0 250 150 7 8 20 0";
  EXPECT_DOUBLE_EQ(*parse_stat_cpu_seconds(stat, 100.0), 4.0);
  EXPECT_DOUBLE_EQ(*parse_stat_cpu_seconds(stat, 250.0), 1.6);
  EXPECT_FALSE(parse_stat_cpu_seconds("4242 (short) S 1 2", 100.0));
  EXPECT_FALSE(parse_stat_cpu_seconds("no name here", 100.0));
}

TEST(ProcessStats, StatusLinesGiveMemoryInMibAndThreads) {
  const std::string status =
      "Name:\tfathom\nVmPeak:\t 9000 kB\nVmHWM:\t  204800 kB\nVmRSS:\t  102400 kB\n"
      "Threads:\t7\nVmSwap:\t0 kB\n";
  const auto s = parse_status_memory(status);
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ(s->rss_mib, 100.0);  // 102400 kB
  EXPECT_DOUBLE_EQ(s->rss_peak_mib, 200.0);
  EXPECT_EQ(s->threads, 7);
  EXPECT_FALSE(parse_status_memory("Name:\tx\nVmRSS:\t1 kB\n"));  // no peak, no threads
}

// This process: a thread it starts is counted, 64 MiB it touches raise the resident set and
// its peak by about that much, and CPU it burns reads as getrusage counts it.
double rusage_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
         1e-6 * (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

TEST(ProcessStats, ThisProcessSeesItsOwnThreadsMemoryAndCpu) {
  const auto before = read_process_stats();
  ASSERT_TRUE(before) << "/proc/self is readable on Linux";
  EXPECT_GE(before->threads, 1);
  EXPECT_GE(before->rss_peak_mib, before->rss_mib);
  std::atomic<bool> stop{false};
  std::thread idle([&] {
    while (!stop) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  std::vector<char> block(64u << 20);
  std::memset(block.data(), 1, block.size());  // touched: resident
  const auto during = read_process_stats();
  stop = true;
  idle.join();
  ASSERT_TRUE(during);
  EXPECT_EQ(during->threads, before->threads + 1);
  EXPECT_GT(during->rss_mib, before->rss_mib + 60);
  EXPECT_GE(during->rss_peak_mib, during->rss_mib);
  EXPECT_GT(block[12345], 0);

  // Busy until getrusage (another source than /proc) counts 0.3 s of CPU: the utilisation
  // over that time is the same figure, whatever share of a core a shared machine gave us.
  CpuUtilisation cpu(read_process_stats()->cpu_seconds);
  const double rusage_before = rusage_cpu_seconds();
  const auto start = std::chrono::steady_clock::now();
  volatile double sink = 0;
  while (rusage_cpu_seconds() - rusage_before < 0.3 &&
         std::chrono::steady_clock::now() - start < std::chrono::seconds(30))
    for (int i = 0; i < 100000; ++i) sink = sink + 1;
  const double busy = cpu.percent_since_last(read_process_stats()->cpu_seconds);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double expected = 100 * (rusage_cpu_seconds() - rusage_before) / wall;
  // /proc counts in clock ticks (10 ms): two ticks of slack over the interval.
  EXPECT_NEAR(busy, expected, 100 * 0.02 / wall + 2) << "over " << wall << " s";
  EXPECT_GT(busy, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_LT(cpu.percent_since_last(read_process_stats()->cpu_seconds), 30.0);  // asleep
}

TEST(Nvml, CudaIndexMapsThroughVisibleDevices) {
  EXPECT_EQ(nvml_device_of(1, nullptr), "1");
  EXPECT_EQ(nvml_device_of(1, "3,0"), "0");
  EXPECT_EQ(nvml_device_of(0, "GPU-8e6c1b1a-0000"), "GPU-8e6c1b1a-0000");
  EXPECT_EQ(nvml_device_of(2, "3,0"), "");  // not visible: no device
}

// Where there is no NVIDIA driver (this CPU machine), opening NVML finds nothing and says so
// by returning none; where there is one it reads plausible figures.
TEST(Nvml, OpensOnlyWhereTheDriverIsAndReadsPlausibleFigures) {
  const auto nvml = Nvml::open(0);
  if (!nvml) GTEST_SKIP() << "no NVIDIA management library here: nothing recorded, as designed";
  const auto r = nvml->read();
  ASSERT_TRUE(r);
  EXPECT_GE(r->utilisation_percent, 0);
  EXPECT_LE(r->utilisation_percent, 100);
  EXPECT_GT(r->memory_used_mib, 0);
}

}  // namespace test_process_stats
}  // namespace fathom
