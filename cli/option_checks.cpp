#include "cli/option_checks.h"

#include <cmath>
#include <cstdlib>
#include <string>

#include "base/util/error.h"
#include "base/util/strings.h"
#include "db/heartbeat.h"

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

void check_heartbeat_timeout(const std::string& command, double timeout_s, double interval_s,
                             const std::string& interval_source) {
  constexpr double kMostHeartbeatTimeout = 86'400;
  if (!std::isfinite(timeout_s))
    throw InputError(command, 0, "--heartbeat-timeout",
                     format_number(timeout_s) + " is not a number of seconds");
  if (timeout_s > kMostHeartbeatTimeout)
    throw InputError(command, 0, "--heartbeat-timeout",
                     format_number(timeout_s) + " s is longer than a day (" +
                         format_number(kMostHeartbeatTimeout) +
                         " s): a lost worker would hold its run that long");
  const double least = db::kMinBeatsPerTimeout * interval_s;
  if (!(timeout_s >= least))
    throw InputError(command, 0, "--heartbeat-timeout",
                     format_number(timeout_s) + " s is too short: a worker beats every " +
                         format_number(interval_s) + " s (" + interval_source +
                         "), so it must be at least " + format_number(db::kMinBeatsPerTimeout) +
                         " beats, " + format_number(least) + " s");
}

CLI::Option* add_budget_option(CLI::App* cmd, std::string& text, CLI::Option* value) {
  CLI::Option* at = cmd->add_option(
      "--at", text,
      "compare at an equal budget, not at the runs' ends: each run's last value at or before "
      "compute=FLOPS (training FLOPs, e.g. compute=2e15), tokens=N (target tokens) or update=N; "
      "AXIS=least takes the least any finished run reached (compute and tokens within 2 %); "
      "runs short of it are left out and named");
  if (value) at->excludes(value);
  return at;
}

}  // namespace fathom::cli
