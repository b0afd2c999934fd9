#pragma once
// Whether two stored values are the same for a redraw's purposes: equal, or both NaN (a
// missing value, which == never matches).
#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace fathom {

inline bool same_value(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

inline bool same_values(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!same_value(a[i], b[i])) return false;
  return true;
}

// Named values (a run's final metrics): the same names, each the same value.
inline bool same_values(const std::map<std::string, double>& a,
                        const std::map<std::string, double>& b) {
  if (a.size() != b.size()) return false;
  for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j)
    if (i->first != j->first || !same_value(i->second, j->second)) return false;
  return true;
}

}  // namespace fathom
