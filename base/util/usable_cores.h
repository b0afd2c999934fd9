#pragma once
#include <optional>

namespace fathom {

// The CPUs the calling thread may use: its affinity mask's count (taskset, a Slurm or container
// cpuset), not the machine's hardware_concurrency(), which counts every core and so gives
// "all cores" runs more threads than they may use (three analyses side by side on a third
// of a machine each would each start a thread per core of the machine); and no more than its
// cgroup's CPU quota allows, rounded up (docker --cpus, a Kubernetes limit:
// base/util/cpu_quota.h, read once per process). At least 1.
int usable_cores();

// `cpus` within a quota of `quota` CPUs (none: no quota), at least 1.
int cores_within(int cpus, std::optional<double> quota);

}  // namespace fathom
