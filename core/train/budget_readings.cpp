#include "core/train/budget_readings.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace fathom {

BudgetReadings::BudgetReadings(const std::vector<std::string>& valid_at, double every_flops)
    : every_flops_(every_flops) {
  for (const std::string& text : valid_at) {
    std::string why;
    const auto budget = parse_budget_text(text, /*allow_least=*/false, why);
    if (!budget) throw std::invalid_argument("train.valid_at: " + why);
    budgets_.push_back(*budget);
  }
}

bool BudgetReadings::due(int64_t update, double tokens, double flops, double tokens_after,
                         double flops_after) {
  most_tokens_ = std::max(most_tokens_, tokens);
  most_flops_ = std::max(most_flops_, flops);
  bool due = false;
  for (const BudgetText& b : budgets_) {
    if (b.axis == "update") {
      due |= static_cast<double>(update) == b.x;
    } else {
      const double after = b.axis == "tokens" ? tokens_after : flops_after;
      const double next = b.axis == "tokens" ? most_tokens_ : most_flops_;
      due |= std::isfinite(after) && after <= b.x && b.x < after + next;
    }
  }
  if (every_flops_ > 0 && std::isfinite(flops_after)) {
    // The least multiple at or past x(u): inside the budget of the next update's reach?
    const double k = std::max(1.0, std::ceil(flops_after / every_flops_));
    due |= k * every_flops_ < flops_after + most_flops_;
  }
  return due;
}

}  // namespace fathom
