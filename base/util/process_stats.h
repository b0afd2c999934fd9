#pragma once
// What this process costs the machine, read from Linux's /proc/self (proc(5)): CPU time, the
// resident memory now and at its peak, and the number of threads. The trainer samples it at
// its log points (core/train/system_metrics.h); a read of two small files, no system call that
// waits (bench/bench_system_metrics.cpp measures it).
#include <cstdint>
#include <optional>
#include <string>

namespace fathom {

struct ProcessStats {
  double cpu_seconds = 0;   // user + system time of every thread so far (utime + stime)
  double rss_mib = 0;       // resident set now (VmRSS)
  double rss_peak_mib = 0;  // its high-water mark (VmHWM)
  int64_t threads = 0;      // Threads
};

// This process's figures; nullopt where /proc/self is not there (not Linux).
std::optional<ProcessStats> read_process_stats();

// The parsers, apart so that tests can feed them text: /proc/self/stat's line (utime and
// stime, fields 14 and 15 counted after the parenthesised command name, which may hold spaces
// and parentheses), in clock ticks of `ticks_per_second`; /proc/self/status's "Key: value kB"
// lines. nullopt when the text lacks a field.
std::optional<double> parse_stat_cpu_seconds(const std::string& stat, double ticks_per_second);
std::optional<ProcessStats> parse_status_memory(const std::string& status);

// CPU utilisation between samples: the CPU seconds used since the previous call (or since
// construction) over the wall seconds, as a percentage of one core (400 = four busy cores).
class CpuUtilisation {
 public:
  explicit CpuUtilisation(double cpu_seconds_now);
  double percent_since_last(double cpu_seconds_now);

 private:
  double cpu_seconds_;
  int64_t wall_ns_;
};

}  // namespace fathom
