#include "experiments/report_numbers.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace fathom::experiments {

std::string cell_number(double v, const char* format) {
  if (!std::isfinite(v)) return "-";
  char buf[48];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string report_number(double v) {
  if (!std::isfinite(v)) return "nan";
  char buf[32];
  std::snprintf(buf, sizeof buf, std::fabs(v) >= 1000 ? "%.0f" : "%.4g", v);
  return buf;
}

std::vector<std::string> column_numbers(const std::vector<double>& values) {
  double largest = 0;
  for (double v : values)
    if (std::isfinite(v)) largest = std::max(largest, std::fabs(v));
  const bool tiny = largest > 0 && largest < 1e-3;
  const int decimals =
      largest == 0 ? 2 : std::clamp(3 - static_cast<int>(std::floor(std::log10(largest))), 0, 6);
  std::vector<std::string> out;
  for (double v : values) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    out.push_back(tiny ? report_number(v) : std::isfinite(v) ? buf : "nan");
  }
  return out;
}

}  // namespace fathom::experiments
