// A cgroup's CPU quota (base/util/cpu_quota.h) as the kernel writes it, and where a process's
// CPU controller keeps it on cgroup v2, on a hybrid v1 system and in a container; usable_cores'
// rounding (base/util/usable_cores.h). The quota in force, on a real process, is checked by
// RunThreads.ACgroupsCpuQuotaBoundsAllCores (tests/core/test_run_threads_cli.cpp).
#include <gtest/gtest.h>

#include "base/util/cpu_quota.h"
#include "base/util/usable_cores.h"

namespace test_cpu_quota {
using fathom::cores_within;
using fathom::cpu_cgroup_of;
using fathom::cpu_quota_v1;
using fathom::cpu_quota_v2;

TEST(CpuQuota, V2ReadsQuotaOverPeriodAndMaxAsNone) {
  EXPECT_DOUBLE_EQ(*cpu_quota_v2("200000 100000\n"), 2.0);  // docker --cpus=2
  EXPECT_DOUBLE_EQ(*cpu_quota_v2("150000 100000\n"), 1.5);
  EXPECT_DOUBLE_EQ(*cpu_quota_v2("50000 100000"), 0.5);
  EXPECT_FALSE(cpu_quota_v2("max 100000\n"));  // no limit
  EXPECT_FALSE(cpu_quota_v2(""));              // no file (a cgroup without the controller)
  EXPECT_FALSE(cpu_quota_v2("0 100000"));
  EXPECT_FALSE(cpu_quota_v2("fast 100000"));
}

TEST(CpuQuota, V1ReadsQuotaOverPeriodAndMinusOneAsNone) {
  EXPECT_DOUBLE_EQ(*cpu_quota_v1("400000\n", "100000\n"), 4.0);
  EXPECT_DOUBLE_EQ(*cpu_quota_v1("25000\n", "100000\n"), 0.25);
  EXPECT_FALSE(cpu_quota_v1("-1\n", "100000\n"));
  EXPECT_FALSE(cpu_quota_v1("", ""));
}

TEST(CpuQuota, CoresAreTheMaskWithinTheQuotaRoundedUpAndAtLeastOne) {
  EXPECT_EQ(cores_within(64, 2.0), 2);  // a 2-CPU container on a 64-core host
  EXPECT_EQ(cores_within(64, 1.5), 2);
  EXPECT_EQ(cores_within(64, 0.25), 1);
  EXPECT_EQ(cores_within(4, 16.0), 4);  // a quota above the mask leaves the mask
  EXPECT_EQ(cores_within(8, std::nullopt), 8);
  EXPECT_EQ(cores_within(0, std::nullopt), 1);
}

TEST(CpuQuota, AV2ProcessesControllerIsItsCgroupUnderTheUnifiedMount) {
  const auto g =
      cpu_cgroup_of("0::/system.slice/ci.service\n",
                    "24 30 0:22 / /sys rw,nosuid shared:7 - sysfs sysfs rw\n"
                    "30 24 0:26 / /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 rw\n");
  ASSERT_TRUE(g);
  EXPECT_TRUE(g->v2);
  EXPECT_EQ(g->dir, "/sys/fs/cgroup/system.slice/ci.service");
  EXPECT_EQ(g->mount_point, "/sys/fs/cgroup");
}

// This development machine's layout: the CPU controller in a v1 hierarchy beside v2's.
TEST(CpuQuota, AHybridSystemsControllerIsTheV1CpuHierarchys) {
  const auto g =
      cpu_cgroup_of("4:memory:/a\n2:cpuacct:/\n1:cpu:/batch/job7\n0::/\n",
                    "40 35 0:33 / /sys/fs/cgroup/cpuacct rw shared:10 - cgroup cgroup rw,cpuacct\n"
                    "41 35 0:34 / /sys/fs/cgroup/cpu rw shared:11 - cgroup cgroup rw,cpu\n"
                    "42 35 0:35 / /sys/fs/cgroup/unified rw shared:12 - cgroup2 cgroup2 rw\n");
  ASSERT_TRUE(g);
  EXPECT_FALSE(g->v2);
  EXPECT_EQ(g->dir, "/sys/fs/cgroup/cpu/batch/job7");
  EXPECT_EQ(g->mount_point, "/sys/fs/cgroup/cpu");
}

// Inside a container without a cgroup namespace the mount shows only the container's part of
// the hierarchy (mountinfo's root field), where /proc/self/cgroup names the whole path.
TEST(CpuQuota, AContainersMountShowsItsOwnCgroupAtTheTop) {
  const auto g = cpu_cgroup_of(
      "5:cpu,cpuacct:/docker/abc123\n",
      "50 45 0:40 /docker/abc123 /sys/fs/cgroup/cpu,cpuacct ro - cgroup cgroup ro,cpu,cpuacct\n");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->dir, "/sys/fs/cgroup/cpu,cpuacct");
  const auto below =
      cpu_cgroup_of("0::/docker/abc123/worker\n",
                    "50 45 0:40 /docker/abc123 /sys/fs/cgroup ro - cgroup2 cgroup2 rw\n");
  ASSERT_TRUE(below);
  EXPECT_EQ(below->dir, "/sys/fs/cgroup/worker");
}

TEST(CpuQuota, NoMountedControllerIsNone) {
  EXPECT_FALSE(cpu_cgroup_of("0::/\n", "24 30 0:22 / /sys rw - sysfs sysfs rw\n"));
  EXPECT_FALSE(cpu_cgroup_of("", ""));
  // A v1 hierarchy of other controllers only.
  EXPECT_FALSE(cpu_cgroup_of("4:memory:/a\n",
                             "40 35 0:33 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"));
}

}  // namespace test_cpu_quota
