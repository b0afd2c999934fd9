#pragma once
// Whether two stored values are the same for a redraw's purposes: equal, or both NaN (a
// missing value, which == never matches).
#include <cmath>
#include <vector>

namespace fathom {

inline bool same_value(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

inline bool same_values(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!same_value(a[i], b[i])) return false;
  return true;
}

}  // namespace fathom
