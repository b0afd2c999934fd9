#include "base/config/budget_text.h"

#include <cmath>
#include <cstdlib>

namespace fathom {

std::optional<BudgetText> parse_budget_text(const std::string& text, bool allow_least,
                                            std::string& why) {
  const size_t eq = text.find('=');
  const std::string axis = text.substr(0, eq == std::string::npos ? 0 : eq);
  const std::string least_form = allow_least ? ", or AXIS=least" : "";
  if (axis != "update" && axis != "tokens" && axis != "compute") {
    why = "'" + text + "': expected update=N, tokens=N or compute=FLOPS (e.g. compute=2e15)" +
          least_form;
    return std::nullopt;
  }
  const std::string number = text.substr(eq + 1);
  if (number == "least" && allow_least) return BudgetText{axis, 0, true};
  char* end = nullptr;
  const double x = std::strtod(number.c_str(), &end);
  if (number.empty() || *end != '\0' || !std::isfinite(x) || x <= 0) {
    why = "'" + text + "': the budget must be a number > 0" + (allow_least ? ", or least" : "");
    return std::nullopt;
  }
  return BudgetText{axis, x, false};
}

}  // namespace fathom
