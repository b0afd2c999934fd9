#include "plot/budgets_json.h"

#include "base/util/json_number.h"

namespace fathom::plot {

nlohmann::json optima_json(const std::vector<experiments::AxisOptimum>& optima) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& o : optima)
    out.push_back({{"line", o.line},
                   {"points", o.points},
                   {"best", o.points >= 3 ? number_or_null(o.best.x) : nlohmann::json()},
                   {"grid_best", o.points >= 3 ? number_or_null(o.best.grid_x) : nlohmann::json()},
                   {"ci95", {number_or_null(o.best.ci_lo), number_or_null(o.best.ci_hi)}},
                   {"interval_df", o.best.interval_df},
                   {"bracketed", o.best.bracketed},
                   {"inconclusive", o.inconclusive()},
                   {"says", o.text()}});
  return out;
}

nlohmann::json scalings_json(const std::vector<experiments::OptimumScaling>& scalings) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& s : scalings)
    out.push_back({{"line", s.line},
                   {"budget_axis", s.budget_axis},
                   {"budgets", s.budgets},
                   {"budgets_asked", s.budgets_asked},
                   {"exponent", number_or_null(s.exponent)},
                   {"ci95", {number_or_null(s.ci_lo), number_or_null(s.ci_hi)}},
                   {"interval_df", s.interval_df},
                   {"inconclusive", s.inconclusive()},
                   {"says", s.text()}});
  return out;
}

}  // namespace fathom::plot
