#include "cli/option_checks.h"

#include <cstdlib>
#include <string>

namespace fathom::cli {
namespace {

CLI::Validator bound_check(bool positive) {
  return CLI::Validator(
      [positive](std::string& value) {
        char* end = nullptr;
        const double x = std::strtod(value.c_str(), &end);
        if (end == value.c_str() || *end != '\0')
          return std::string();  // CLI11 says "not a number"
        if (positive ? x > 0 : x >= 0) return std::string();
        return std::string(positive ? "must be positive" : "must not be negative") + " (got " +
               value + ")";
      },
      positive ? "> 0" : ">= 0");
}

}  // namespace

CLI::Validator positive_number() { return bound_check(true); }
CLI::Validator non_negative_number() { return bound_check(false); }

}  // namespace fathom::cli
