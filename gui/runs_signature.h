#pragma once
// What a view that draws a sweep's results compares between polls to redraw only when something
// it shows changed: every run's id, status and last update. Written into one string without a
// temporary a run: every tab computes its own at each poll (16,000 runs a second).
#include <charconv>
#include <cstdint>
#include <string>
#include <vector>

#include "db/store.h"

namespace fathom::gui {

namespace signature_detail {
inline void append_number(std::string& out, int64_t value) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
  out.append(digits, end);
}

inline std::string signature(const std::vector<db::RunRecord>& runs, bool with_updates) {
  std::string out;
  out.reserve(runs.size() * (with_updates ? 24 : 16));
  for (const auto& r : runs) {
    append_number(out, r.id);
    out += r.status;
    if (with_updates) append_number(out, r.updates);
    out += ';';
  }
  return out;
}
}  // namespace signature_detail

inline std::string runs_signature(const std::vector<db::RunRecord>& runs) {
  return signature_detail::signature(runs, true);
}

// Every run's id and status: the runs and their final metrics (which come with a status).
inline std::string runs_status_signature(const std::vector<db::RunRecord>& runs) {
  return signature_detail::signature(runs, false);
}

}  // namespace fathom::gui
