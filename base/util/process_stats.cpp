#include "base/util/process_stats.h"

#include <unistd.h>

#include <chrono>
#include <sstream>

#include "base/util/file_bytes.h"

namespace fathom {
namespace {

// The number after `key` ("VmRSS:") at a line's start, nullopt when there is no such line.
std::optional<double> status_value(const std::string& status, const std::string& key) {
  size_t at = 0;
  while (at < status.size()) {
    const size_t end = std::min(status.find('\n', at), status.size());
    if (status.compare(at, key.size(), key) == 0) {
      try {
        return std::stod(status.substr(at + key.size(), end - at - key.size()));
      } catch (const std::exception&) {
        return std::nullopt;
      }
    }
    at = end + 1;
  }
  return std::nullopt;
}

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

std::optional<double> parse_stat_cpu_seconds(const std::string& stat, double ticks_per_second) {
  // "pid (comm) state ppid ...": the name may hold ") ", so fields count from its last ')'.
  const size_t close = stat.rfind(')');
  if (close == std::string::npos || ticks_per_second <= 0) return std::nullopt;
  std::istringstream fields(stat.substr(close + 1));
  std::string field;
  double utime = 0;
  // After the name: state is field 3, utime field 14, stime field 15 (proc(5)).
  for (int index = 3; index <= 15 && fields >> field; ++index) {
    try {
      if (index == 14) utime = std::stod(field);
      if (index == 15) return (utime + std::stod(field)) / ticks_per_second;
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

std::optional<ProcessStats> parse_status_memory(const std::string& status) {
  const auto rss = status_value(status, "VmRSS:");
  const auto peak = status_value(status, "VmHWM:");
  const auto threads = status_value(status, "Threads:");
  if (!rss || !peak || !threads) return std::nullopt;
  ProcessStats s;
  s.rss_mib = *rss / 1024.0;  // kB
  s.rss_peak_mib = *peak / 1024.0;
  s.threads = static_cast<int64_t>(*threads);
  return s;
}

std::optional<ProcessStats> read_process_stats() {
  const auto stat = read_small_file("/proc/self/stat");
  const auto status = read_small_file("/proc/self/status");
  if (!stat || !status) return std::nullopt;
  auto stats = parse_status_memory(*status);
  const auto cpu = parse_stat_cpu_seconds(*stat, static_cast<double>(sysconf(_SC_CLK_TCK)));
  if (!stats || !cpu) return std::nullopt;
  stats->cpu_seconds = *cpu;
  return stats;
}

CpuUtilisation::CpuUtilisation(double cpu_seconds_now)
    : cpu_seconds_(cpu_seconds_now), wall_ns_(now_ns()) {}

double CpuUtilisation::percent_since_last(double cpu_seconds_now) {
  const int64_t wall = now_ns();
  const double wall_s = static_cast<double>(wall - wall_ns_) * 1e-9;
  const double percent = wall_s > 0 ? 100.0 * (cpu_seconds_now - cpu_seconds_) / wall_s : 0.0;
  cpu_seconds_ = cpu_seconds_now;
  wall_ns_ = wall;
  return percent;
}

}  // namespace fathom
