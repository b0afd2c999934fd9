#pragma once
// A budgets figure's findings as `fathom export plot budgets --json` gives them: each line's
// optimum and each row's exponent of its best x against the budget (NaN as null).
#include <vector>

#include <nlohmann/json.hpp>

#include "experiments/axis_optimum.h"
#include "experiments/optimum_scaling.h"

namespace fathom::plot {

nlohmann::json optima_json(const std::vector<experiments::AxisOptimum>& optima);
nlohmann::json scalings_json(const std::vector<experiments::OptimumScaling>& scalings);

}  // namespace fathom::plot
