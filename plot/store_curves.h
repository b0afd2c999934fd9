#pragma once
// Training curves from the run store: the figure `fathom export plot curves` draws (and
// `fathom report`), run by run or in groups of runs with a band; the GUI draws the same.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/metrics/spikes.h"
#include "db/store.h"
#include "experiments/comparison_table.h"
#include "plot/curve_groups.h"
#include "plot/curve_x.h"
#include "plot/figure.h"

namespace fathom::plot {

struct CurveQuery {
  std::vector<int64_t> runs;  // these runs, in this order...
  std::string sweep;          // ...or every run of this sweep (oldest first)
  // Runs drawn beside those, first, as they are: each its own style and curve, never coloured
  // by colour_by nor put in a group, labelled "(reference)" -- a baseline, a fork sweep's
  // parent (whose config would share a colour with the fork that keeps its settings).
  std::vector<int64_t> references;
  std::vector<std::string> metrics;  // e.g. valid_loss, train_loss
  double smoothing = 0;              // debiased EMA weight
  bool log_y = false;
  // Runs with the same value share a style: a sweep axis (tag "axis.KEY", e.g. model.init),
  // any tag, or a dotted config path. Empty: every run its own style.
  std::string colour_by;
  // Set: one curve per group of runs with equal values of these keys (plot/run_groups.h;
  // "axes" = every sweep axis but the seed): the members' mean with a `band`.
  std::vector<std::string> group_by;
  Band band = Band::Std;
  XAxis x = XAxis::Update;
  // A run's curve of train_loss or grad_norm marks its spikes by this rule (at most
  // kMaxSpikeMarks, the largest); unset: none. Group curves (means) are not marked.
  std::optional<SpikeRule> spikes = SpikeRule{};
  // Set (its axis x's): the comparison's budget as a dashed line, and on each run's curve the
  // point a table at it reads (value_at_budget.h); a least budget is found among the selected
  // runs that finished, as a table of them finds it.
  std::optional<experiments::Budget> at;
};

// At most this many spike marks a curve (spikes_to_mark in base/metrics/spikes.h).
constexpr size_t kMaxSpikeMarks = 20;

// The spike marks' legend entry, the rule that found them: "spike (> 4 sd above the last 20)".
std::string spike_legend(const SpikeRule& rule);

// One curve per (run, metric) that has points -- or per (group, metric) -- diverged runs
// marked. Unknown runs, an empty sweep, no points at all or (x = tokens) runs without a
// target_tokens curve throw fathom::InputError, as does an `at` on another axis than x.
CurveFigure curves_from_store(const db::Store& store, CurveQuery query);

// The value of `key` for one run as colour_by and group_by resolve it; "" when the run has none.
std::string run_attribute(const db::Store& store, const db::RunRecord& run, const std::string& key);

}  // namespace fathom::plot
