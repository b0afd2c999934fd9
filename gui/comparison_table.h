#pragma once
// The comparison table of a sweep: one final metric in a grid whose rows and columns are two
// of its axes (run tags axis.<key>), seeds and other axes averaged over. Pure C++ so the
// pivot is tested on its own.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "db/store.h"

namespace fathom::gui {

struct ComparisonCell {
  int runs = 0;          // runs in the cell with a finite metric
  int diverged = 0;      // runs in the cell that diverged (no metric counted for them)
  int missing = 0;       // other runs without the metric (still training, failed, ...)
  double mean = 0, std = 0;
};

struct ComparisonTable {
  std::vector<std::string> rows, cols;  // axis values, numerically ordered when numbers
  std::vector<std::vector<ComparisonCell>> cells;  // cells[row][col]
};

// col_key "" gives one column. Runs without the row (or column) tag are left out.
ComparisonTable compare_runs(const std::vector<db::RunRecord>& runs,
                             const std::map<int64_t, std::map<std::string, std::string>>& tags,
                             const std::string& row_key, const std::string& col_key,
                             const std::string& metric);

}  // namespace fathom::gui
