#pragma once
// A stored number as a double: NaN for the null nlohmann::json writes for a NaN or infinity
// (a diverged model's values, a statistic with nothing to average).
#include <limits>

#include <nlohmann/json.hpp>

namespace fathom::analysis {

inline double number_or_nan(const nlohmann::json& j) {
  return j.is_number() ? j.get<double>() : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace fathom::analysis
