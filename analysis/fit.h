#pragma once
// Least-squares line y = a x + b with its coefficient of determination R^2 (methods.md s5.2
// fits the output change against N and log N).
#include <vector>

#include <nlohmann/json.hpp>

namespace fathom::analysis {

struct LineFit {
  double a = 0, b = 0;
  double r2 = 0;  // 1 - SS_res / SS_tot; NaN when y is constant or fewer than 2 points
  nlohmann::json to_json() const;
};

LineFit fit_line(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace fathom::analysis
