#pragma once
// JSON has no infinity and no NaN (nlohmann::json would print them as null anyway, but only
// when dumping, and a value read back from the object in memory would still be inf): a number
// that is not finite -- an unbounded interval's end, a fit's undefined R^2 -- is written as null,
// which every reader of Fathom's --json output takes for "none", and read back as NaN.
#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

namespace fathom {

inline nlohmann::json number_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
}

// A stored number as a double: NaN for null (a diverged model's values, a statistic with
// nothing to average).
inline double number_or_nan(const nlohmann::json& j) {
  return j.is_number() ? j.get<double>() : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace fathom
