// usable_cores (base/util/usable_cores.h): the CPUs a thread may run on, read from its affinity
// mask, so that a run confined by taskset or a cpuset starts one thread per core it has.
#include <gtest/gtest.h>
#include <sched.h>

#include <thread>

#include "base/util/cpu_quota.h"
#include "base/util/usable_cores.h"

namespace test_usable_cores {
using fathom::usable_cores;

int mask_count() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  EXPECT_EQ(sched_getaffinity(0, sizeof(mask), &mask), 0);
  return CPU_COUNT(&mask);
}

TEST(UsableCores, CountsTheAffinityMaskOfTheCallingThread) {
  // Within this process's CPU quota where its cgroup has one (none on an unconfined machine).
  EXPECT_EQ(usable_cores(), fathom::cores_within(mask_count(), fathom::this_cpu_quota()));
  EXPECT_GE(usable_cores(), 1);
  EXPECT_LE(usable_cores(), static_cast<int>(std::thread::hardware_concurrency()));
}

TEST(UsableCores, AThreadConfinedToOneCoreHasOne) {
  // A thread of its own, so the test's process keeps its mask: confined to the first CPU it
  // may use, it has one core whatever the machine has.
  int confined = 0;
  int after = 0;
  std::thread worker([&] {
    cpu_set_t mask;
    CPU_ZERO(&mask);
    ASSERT_EQ(sched_getaffinity(0, sizeof(mask), &mask), 0);
    int first = 0;
    while (!CPU_ISSET(first, &mask)) ++first;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
    confined = usable_cores();
    ASSERT_EQ(sched_setaffinity(0, sizeof(mask), &mask), 0);
    after = usable_cores();
  });
  worker.join();
  EXPECT_EQ(confined, 1);
  EXPECT_EQ(after, fathom::cores_within(mask_count(), fathom::this_cpu_quota()));
}

}  // namespace test_usable_cores
