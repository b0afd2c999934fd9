#include "base/util/cpu_quota.h"

#include <sstream>
#include <vector>

#include "base/util/file_bytes.h"
#include "base/util/strings.h"

namespace fathom {
namespace {

std::optional<double> positive_number(const std::string& text) {
  try {
    size_t used = 0;
    const double v = std::stod(text, &used);
    if (v > 0 && text.find_first_not_of(" \t\n", used) == std::string::npos) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

// The hierarchy's directory for cgroup `path` under a mount of hierarchy root `root` at
// `mount_point`: the mount shows the part of the hierarchy below `root` (a container sees its
// own cgroup as the top).
std::string directory_of(const std::string& path, const std::string& root,
                         const std::string& mount_point) {
  std::string below;
  if (root == "/")
    below = path;
  else if (path.rfind(root, 0) == 0 && (path.size() == root.size() || path[root.size()] == '/'))
    below = path.substr(root.size());
  std::string dir = mount_point;
  if (!below.empty() && below != "/") dir += below;
  return dir;
}

}  // namespace

std::optional<double> cpu_quota_v2(const std::string& cpu_max) {
  std::istringstream in(cpu_max);
  std::string quota, period;
  if (!(in >> quota >> period) || quota == "max") return std::nullopt;
  const auto q = positive_number(quota), p = positive_number(period);
  if (!q || !p) return std::nullopt;
  return *q / *p;
}

std::optional<double> cpu_quota_v1(const std::string& quota_us, const std::string& period_us) {
  const auto q = positive_number(quota_us), p = positive_number(period_us);  // -1: none
  if (!q || !p) return std::nullopt;
  return *q / *p;
}

std::optional<CpuCgroup> cpu_cgroup_of(const std::string& proc_cgroup,
                                       const std::string& mountinfo) {
  // This process's cgroup in the v1 `cpu` hierarchy ("4:cpu,cpuacct:/a") and in v2 ("0::/a").
  std::optional<std::string> v1_path, v2_path;
  for (const std::string& line : split(proc_cgroup, '\n')) {
    const auto first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    if (line.compare(0, first, "0") == 0 && controllers.empty()) v2_path = path;
    for (const std::string& c : split(controllers, ','))
      if (c == "cpu") v1_path = path;
  }
  std::optional<CpuCgroup> v1, v2;
  // "36 35 0:30 / /sys/fs/cgroup/cpu rw,relatime shared:9 - cgroup cgroup rw,cpu"
  for (const std::string& line : split(mountinfo, '\n')) {
    const auto dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    const std::vector<std::string> before = split(line.substr(0, dash), ' ');
    const std::vector<std::string> after = split(line.substr(dash + 3), ' ');
    if (before.size() < 5 || after.size() < 3) continue;
    const std::string& root = before[3];
    const std::string& mount_point = before[4];
    if (after[0] == "cgroup2" && v2_path && !v2)
      v2 = CpuCgroup{directory_of(*v2_path, root, mount_point), mount_point, true};
    if (after[0] == "cgroup" && v1_path && !v1)
      for (const std::string& option : split(after[2], ','))
        if (option == "cpu") v1 = CpuCgroup{directory_of(*v1_path, root, mount_point), mount_point};
  }
  // Where a v1 hierarchy holds the CPU controller (a hybrid system), v2's has none.
  return v1 ? v1 : v2;
}

std::optional<CpuCgroup> this_cpu_cgroup() {
  const std::string cgroup = read_small_file("/proc/self/cgroup").value_or("");
  if (cgroup.empty()) return std::nullopt;
  return cpu_cgroup_of(cgroup, read_small_file("/proc/self/mountinfo").value_or(""));
}

std::optional<double> this_cpu_quota() {
  const auto cgroup = this_cpu_cgroup();
  if (!cgroup) return std::nullopt;
  std::optional<double> least;
  std::string dir = cgroup->dir;
  while (true) {
    const auto quota = cgroup->v2
                           ? cpu_quota_v2(read_small_file(dir + "/cpu.max").value_or(""))
                           : cpu_quota_v1(read_small_file(dir + "/cpu.cfs_quota_us").value_or(""),
                                          read_small_file(dir + "/cpu.cfs_period_us").value_or(""));
    if (quota && (!least || *quota < *least)) least = quota;
    if (dir.size() <= cgroup->mount_point.size()) break;
    dir = dir.substr(0, dir.rfind('/'));
  }
  return least;
}

}  // namespace fathom
