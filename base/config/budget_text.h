#pragma once
// A budget on a training axis as text: "compute=2e15" (training FLOPs), "tokens=5e7" (target
// tokens) or "update=4000", and where the reader allows it "AXIS=least". One reading of that
// text for both its users: `--at` of the tables and figures (experiments/value_at_budget.h)
// and train.valid_at, the budgets a run validates just inside (core/train/budget_readings.h).
#include <optional>
#include <string>

namespace fathom {

struct BudgetText {
  std::string axis;  // update | tokens | compute
  double x = 0;      // > 0; 0 with `least`
  bool least = false;
};

// nullopt for anything else (or a least where `allow_least` is false), `why` then saying what
// was expected, beginning with the text in quotes.
std::optional<BudgetText> parse_budget_text(const std::string& text, bool allow_least,
                                            std::string& why);

}  // namespace fathom
