#include "analysis/fit.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "base/util/json_number.h"

namespace fathom::analysis {

nlohmann::json LineFit::to_json() const {
  return {{"a", a}, {"b", b}, {"r2", number_or_null(r2)}};  // an undefined R^2: null
}

LineFit fit_line(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size()) throw std::invalid_argument("fit_line: x and y differ in length");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double n = static_cast<double>(x.size());
  if (x.size() < 2) return {0, x.empty() ? 0 : y[0], nan};
  double mx = 0, my = 0;
  for (size_t i = 0; i < x.size(); ++i) mx += x[i] / n, my += y[i] / n;
  double sxx = 0, sxy = 0, syy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
    syy += (y[i] - my) * (y[i] - my);
  }
  LineFit fit;
  fit.a = sxx > 0 ? sxy / sxx : 0;
  fit.b = my - fit.a * mx;
  double ss_res = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double r = y[i] - (fit.a * x[i] + fit.b);
    ss_res += r * r;
  }
  fit.r2 = syy > 0 ? 1 - ss_res / syy : nan;
  return fit;
}

}  // namespace fathom::analysis
