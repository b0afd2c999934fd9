#include "base/util/usable_cores.h"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <thread>

#include "base/util/cpu_quota.h"

namespace fathom {

int cores_within(int cpus, std::optional<double> quota) {
  // A quota of 1.5 CPUs keeps two threads busy most of the time: round up, as Go and the JVM do.
  if (quota) cpus = std::min(cpus, static_cast<int>(std::ceil(*quota - 1e-9)));
  return std::max(1, cpus);
}

int usable_cores() {
  static const std::optional<double> quota = this_cpu_quota();  // files: read once
  int cpus = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof(mask), &mask) == 0 && CPU_COUNT(&mask) > 0)
    cpus = CPU_COUNT(&mask);  // the calling thread's
  return cores_within(cpus, quota);
}

}  // namespace fathom
