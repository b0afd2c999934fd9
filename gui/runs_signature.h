#pragma once
// What a view that draws a sweep's results compares between polls to redraw only when something
// it shows changed: every run's id, status and last update.
#include <string>
#include <vector>

#include "db/store.h"

namespace fathom::gui {

inline std::string runs_signature(const std::vector<db::RunRecord>& runs) {
  std::string signature;
  for (const auto& r : runs)
    signature += std::to_string(r.id) + r.status + std::to_string(r.updates) + ";";
  return signature;
}

// Every run's id and status: the runs and their final metrics (which come with a status).
inline std::string runs_status_signature(const std::vector<db::RunRecord>& runs) {
  std::string signature;
  for (const auto& r : runs) signature += std::to_string(r.id) + r.status + ";";
  return signature;
}

}  // namespace fathom::gui
