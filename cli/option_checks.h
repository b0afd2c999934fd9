#pragma once
// Number checks for command-line options that say what is wrong in a few words: "must be
// positive (got -1)". CLI11's PositiveNumber and NonNegativeNumber answer with the range they
// check, whose upper end is the largest double written out in 309 digits.
#include <CLI/CLI.hpp>
#include <string>

namespace fathom::cli {

// > 0.
CLI::Validator positive_number();
// >= 0.
CLI::Validator non_negative_number();

// A heartbeat timeout `timeout_s` for judging a worker that beats every `interval_s` seconds
// (`interval_source` says where that number comes from) lost, or an InputError naming
// `command`'s --heartbeat-timeout: a number of seconds, at most a day (a longer one turns
// lost-worker detection off in all but name) and at least db::kMinBeatsPerTimeout beats (a
// shorter one judged every worker lost before it beat once: `--heartbeat-timeout 1`, -1 or nan
// marked every run crashed before its worker started).
// `--at compute=FLOPS|tokens=N|update=N` (experiments/value_at_budget.h) on a command that
// reads runs' values of a metric, into `text`; it excludes `value` (--value) where given.
CLI::Option* add_budget_option(CLI::App* cmd, std::string& text, CLI::Option* value = nullptr);

void check_heartbeat_timeout(const std::string& command, double timeout_s, double interval_s,
                             const std::string& interval_source);

}  // namespace fathom::cli
