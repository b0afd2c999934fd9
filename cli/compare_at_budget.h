#pragma once
// `fathom compare --at BUDGET`: each run's metrics as they stood at an equal budget instead of
// at its end -- its last point of each metric at or before `compute=1e15` (training FLOPs),
// `tokens=N` or `update=N`, or AXIS=least (the least the finished runs among them reached),
// as `fathom export table --at` reads a sweep's runs (experiments/value_at_budget.h). Two
// models of unequal cost -- 6 layers and 18 -- compared at their ends favour the one that was
// given more; at equal compute they are not. A test metric is measured once, at the end, and
// has no value at a budget.
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "db/store.h"
#include "experiments/comparison_table.h"

namespace fathom::cli {

struct MetricsAtBudget {
  experiments::Budget budget;        // as read: a least one's number found
  std::vector<std::string> metrics;  // those with a curve, in order
  // values[m][r]: run r's value of metrics[m] at the budget; none where it has none there
  // (short of it, or no point inside: a note says) or diverged inside it.
  std::vector<std::vector<std::optional<double>>> values;
  // diverged[r]: "diverged@N" where run r diverged inside the budget (its result there), else "".
  std::vector<std::string> diverged;
  std::vector<std::string> notes;  // runs left out or read short, test metrics left out
};

// `metrics` the runs' final metrics (test_* ones are left out, said in a note); InputError
// naming `fathom compare` and --at for a budget no finished run's curve gives (least).
MetricsAtBudget metrics_at_budget(const db::Store& store, const std::vector<db::RunRecord>& runs,
                                  const std::set<std::string>& metrics,
                                  const experiments::Budget& at);

}  // namespace fathom::cli
