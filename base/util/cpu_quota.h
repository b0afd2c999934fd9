#pragma once
// The CPU time a container or a systemd unit may use: its cgroup's CPU quota (docker --cpus=2,
// a Kubernetes CPU limit, systemd's CPUQuota=). The affinity mask does not show it -- a
// container limited to 2 CPUs of a 64-core host sees 64 -- so a run at "all cores" would start
// 64 OpenBLAS threads and be throttled to 2 CPUs' time: threads preempted while holding work the
// others wait for. usable_cores() takes the lesser of the two (base/util/usable_cores.h).
#include <optional>
#include <string>

namespace fathom {

// CPUs of a cgroup v2 `cpu.max` text ("200000 100000": 2.0; "max 100000": none).
std::optional<double> cpu_quota_v2(const std::string& cpu_max);
// CPUs of cgroup v1's `cpu.cfs_quota_us` and `cpu.cfs_period_us` (a quota of -1: none).
std::optional<double> cpu_quota_v1(const std::string& quota_us, const std::string& period_us);

// Where this process's CPU controller keeps its files: its cgroup's directory, and whether the
// hierarchy is cgroup v2. None where no CPU controller is mounted (or /proc is not Linux's).
struct CpuCgroup {
  std::string dir;          // e.g. /sys/fs/cgroup/system.slice/x.service
  std::string mount_point;  // the hierarchy's top as mounted here, e.g. /sys/fs/cgroup
  bool v2 = false;
};
// From the texts of /proc/self/cgroup and /proc/self/mountinfo (cgroup v2 where it has the
// `cpu` controller, else v1's `cpu` hierarchy).
std::optional<CpuCgroup> cpu_cgroup_of(const std::string& proc_cgroup,
                                       const std::string& mountinfo);
std::optional<CpuCgroup> this_cpu_cgroup();

// The smallest quota of this process's cgroup and its ancestors up to the mount point (a
// limit on a parent holds for its children): none where there is none, or it cannot be read.
std::optional<double> this_cpu_quota();

}  // namespace fathom
