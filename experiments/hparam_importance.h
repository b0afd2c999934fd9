#pragma once
// Hyperparameter importance of a sweep (issue 59 item 2): how much of a metric's variance over
// the swept settings each axis, and each pair of axes, explains. On a full grid this is the
// exact functional ANOVA decomposition (Hooker 2007; Hutter, Hoos & Leyton-Brown 2014, "An
// efficient approach for assessing hyperparameter importance", with the grid's cells as a
// uniform measure): with m(c) the mean over seeds of cell c and mu the mean of the m(c),
//   f_i(a)    = mean of m over the cells with axis i at a, minus mu
//   f_ij(a,b) = mean of m over the cells with (i, j) at (a, b), minus mu, f_i(a) and f_j(b)
//   V_i = mean_a f_i(a)^2,   V_ij = mean_{a,b} f_ij(a,b)^2,   V = mean_c (m(c) - mu)^2,
// and V is the sum of V_S over every set S of axes, so V_i / V and V_ij / V are shares that,
// with the higher-order rest, add up to 1. Seeds are replicates, not an axis: their spread
// (the mean within-cell variance) is reported beside V as what the settings do not explain.
// A grid with settings that have no value (runs that diverged, settings never run) is
// completed by the fit of main effects and pairwise interactions to the others
// (experiments/grid_completion.h), and the notes say so with the fit's R^2; it is refused,
// naming a setting, where that fit is not determined: an axis value no setting with a value
// has, or fewer such settings than the fit's unknowns.
#include <map>
#include <string>
#include <vector>

#include "experiments/comparison_table.h"
#include "experiments/text_table.h"

namespace fathom::experiments {

struct ImportanceTerm {
  std::vector<std::string> axes;  // one (a main effect) or two (an interaction)
  double variance = 0;            // V_S
  double share = 0;               // V_S / V
  // 95 % interval of the share over draws resampling each setting's runs (interval_draws > 0).
  double share_lo = 0, share_hi = 0;
};

struct HparamImportance {
  std::string metric;
  std::vector<std::string> axes;      // swept axes with two or more values, sweep order
  std::vector<ImportanceTerm> terms;  // main effects then pairs, each by share, largest first
  double total_variance = 0;          // V, between the cells
  double higher_order_share = 0;      // 1 - the terms' shares: interactions of 3+ axes
  double higher_order_lo = 0, higher_order_hi = 0;  // its interval, as the terms'
  int interval_draws = 0;    // draws behind the intervals; 0: none (one run a setting, too large)
  double seed_variance = 0;  // mean over cells of the seeds' population variance
  int cells = 0, runs = 0;
  int filled = 0;            // settings without a value, filled by the fitted model
  double fit_r_squared = 1;  // that fit's R^2 over the settings with values (filled > 0)
  std::vector<std::string> notes;
};

// From table runs (experiments/comparison_table.h: axes and a metric value per run); runs
// without a value (diverged, failed, still running) are left out and counted in the notes.
// `seed_key` is the replicate axis. InputError (field --sweep) with fewer than one axis of two
// values; (field --metric) naming the first setting with no value when the grid cannot be
// completed.
// `groups`: keys that form one axis (a sweep's zip group, e.g. {model.norm, model.init}),
// named "model.norm+model.init" with values "pre / xavier"; any other key is an axis of its own.
HparamImportance hparam_importance(const std::vector<TableRun>& runs, const std::string& metric,
                                   const std::string& seed_key = "train.seed",
                                   const std::vector<std::vector<std::string>>& groups = {});

// The metric's name for "did the run diverge": 1 for a diverged run, 0 for a finished one.
inline constexpr const char* kDivergedMetric = "diverged";

// From the store: the runs of `sweep` that `where` keeps (experiments/sweep_runs.h), each
// run's `value` of `metric` (RunValue), or with kDivergedMetric each finished or diverged
// run's 1 or 0; the sweep's zip groups (its runs' tag sweep.axes) are one axis each. Only finished
// runs enter a loss (the tables' rule); the notes say what was left out and which filter applied.
// At a budget (value.at, value_at_budget.h) each run as it stood there: its last value inside
// it, or with kDivergedMetric 1 where it had diverged by then; a run short of it is left out.
HparamImportance load_hparam_importance(const db::Store& store, const std::string& sweep,
                                        const std::string& metric, RunReading value,
                                        const std::string& where);
// The same of runs already selected: a report's sections all read the one selection its header
// counts, never a later one that a live sweep has grown since.
HparamImportance hparam_importance_of(const db::Store& store, const SweepRuns& selected,
                                      const std::string& metric, RunReading value);

// One row per term: the axes, V_S, its share in percent; then the rest and the seeds.
TextTable hparam_importance_table(const HparamImportance& importance);

}  // namespace fathom::experiments
