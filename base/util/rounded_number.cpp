#include "base/util/rounded_number.h"

#include <charconv>
#include <cmath>

namespace fathom {

double rounded_to_significant(double value, int digits) {
  if (!std::isfinite(value) || value == 0) return value;
  // to_chars / from_chars: exact decimal conversions, several times faster than printf's.
  char text[40];
  const auto written =
      std::to_chars(text, text + sizeof text, value, std::chars_format::general, digits);
  double rounded = value;
  std::from_chars(text, written.ptr, rounded);
  return rounded;
}

}  // namespace fathom
