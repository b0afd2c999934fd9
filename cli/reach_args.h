#pragma once
// What `fathom export reach` and `fathom export plot reach` are both asked: the sweep, the curve
// and its target, the rows and columns, the direction, the critical-batch fit and the runs
// filter (experiments/time_to_target.h), and reading the table they describe.
#include <cmath>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "db/store.h"
#include "experiments/reach_text.h"
#include "experiments/time_to_target.h"

namespace fathom::cli {

struct ReachArgs {
  std::string sweep, rows, cols, metric, where, direction = "auto";
  double target = NAN;
  bool fit = false;
};

void add_reach_options(CLI::App* cmd, ReachArgs& a);
experiments::ReachOptions reach_options(const ReachArgs& a);

// The table, and the fit over its rows' best cells where asked for, with their B_simple.
struct ReachResult {
  experiments::ReachTable table;
  std::optional<experiments::CriticalBatchFit> fit;
  std::optional<double> b_simple;
};
ReachResult read_reach(const db::Store& store, const ReachArgs& a);

}  // namespace fathom::cli
