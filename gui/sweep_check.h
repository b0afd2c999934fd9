#pragma once
// Checks sweep YAML as `fathom sweep --dry-run` would: parse, expand, check every run's config,
// and the method names against the registry's list as the CLI reports it (method_choices.h;
// a method's own rules, e.g. Admin needs Post-LN, are left to the Dry run button, which asks
// the CLI). Fast enough to run as the user types.
#include <string>

#include "experiments/sweep_spec.h"

namespace fathom::gui {

struct SweepCheck {
  bool ok = false;
  int runs = 0;         // expanded run count when ok
  std::string file;     // where the error is: the sweep (origin) or its base config
  int line = 0;         // 1-based; 0: no line
  std::string field;    // dotted key, may be empty
  std::string message;  // the error as the CLI words it, "file:line: 'key': ..."
};

// `fork_base` reads a fork sweep's parent config from the window's store (without it a fork
// sweep is reported as needing one).
SweepCheck check_sweep_yaml(const std::string& yaml, const std::string& origin,
                            const std::string& base_dir,
                            const experiments::ForkBaseReader& fork_base = {});

}  // namespace fathom::gui
