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
}  // namespace signature_detail

inline std::string runs_signature(const std::vector<db::RunRecord>& runs) {
  std::string signature;
  signature.reserve(runs.size() * 24);
  for (const auto& r : runs) {
    signature_detail::append_number(signature, r.id);
    signature += r.status;
    signature_detail::append_number(signature, r.updates);
    signature += ';';
  }
  return signature;
}

// Every run's id and status: the runs and their final metrics (which come with a status).
inline std::string runs_status_signature(const std::vector<db::RunRecord>& runs) {
  std::string signature;
  signature.reserve(runs.size() * 16);
  for (const auto& r : runs) {
    signature_detail::append_number(signature, r.id);
    signature += r.status;
    signature += ';';
  }
  return signature;
}

}  // namespace fathom::gui
