#pragma once
// A run's system metrics (sys.*, core/train/system_metrics.h) summed up: each one's last value,
// mean and maximum over its samples, in the presentation's order (db/metric_presentation.h),
// with its unit. `fathom show`'s system section and the desktop app's run page read it.
#include <cstdint>
#include <string>
#include <vector>

#include "db/store.h"

namespace fathom::db {

struct SystemSummary {
  std::string name, unit;
  double last = 0, mean = 0, max = 0;
  size_t samples = 0;
};

// Empty when the run logged none (a run recorded before issue 59).
std::vector<SystemSummary> system_summary(const Store& store, int64_t run);

}  // namespace fathom::db
