#pragma once
// This process's peak resident set so far, in MiB: what the store-reading benchmarks print
// beside their times.
#include <sys/resource.h>

namespace fathom::bench {

inline long peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024;  // KiB on Linux
}

}  // namespace fathom::bench
