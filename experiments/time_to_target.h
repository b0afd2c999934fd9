#pragma once
// Time to a target: the update at which a run's curve of a metric first reaches a value
// (validation loss 2.0, BLEU 25), and its tokens -- the measure of optimizer and batch-size
// studies, where runs that end alike may have got there at very different speeds. A sweep's runs
// grouped by a row axis and a column axis (the rate, say), each cell's mean over its seeds with
// the 95 % t-interval, and the best cell of each row (the fewest updates among the cells whose
// every run reached the target). With the batch as the row axis, McCandlish et al. 2018's model
// S = S_min (1 + B_crit / B) ("An empirical model of large-batch training", arXiv 1812.06162,
// eq. 2.11) fitted to the rows' best cells gives the critical batch B_crit, to set against the
// gradient noise scale (`fathom analyze noise-scale`, methods.md s5.12) -- and, where the runs
// read it while they trained (train.noise_scale), to each cell's B_simple where it got there.
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "db/records.h"
#include "db/store.h"
#include "experiments/sweep_runs.h"

namespace fathom::experiments {

// The update at which `curve` (in step order; NaN points skipped) first reaches `target`: at or
// below it when lower is better, at or above otherwise; linear between the last point short of
// it and the first at it; the first point's step when it starts there; nullopt when it never
// does.
std::optional<double> first_reach(const std::vector<db::MetricPoint>& curve, double target,
                                  bool lower_is_better);

struct ReachOptions {
  std::string rows, cols;  // axes (a composite "a+b" joins values with " / "); cols may be ""
  std::string metric;      // a curve: valid_loss, valid_ppl, valid_bleu, ...
  double target = 0;
  std::optional<bool> lower_is_better;  // unset: the metric's own direction
  std::string where;                    // runs filter, as fathom runs --where
};

struct ReachCell {
  std::string row, col;
  int runs = 0, reached = 0;  // runs of the cell (finished or diverged), those that reached
  double updates = 0, updates_ci95 = 0;  // mean over the runs that reached; ci95 NaN under 2
  double tokens = 0, tokens_ci95 = 0;    // target tokens at that update
  double tokens_per_update = 0;          // the cell's mean B: target tokens over updates
  // Runs that logged train.noise_scale: the mean over those that reached of B_simple where they
  // did (noise_scale_at, experiments/noise_scale_curve.h), in target tokens; NaN where none has
  // one.
  double b_simple = NAN;
  int b_simple_runs = 0;
  // Each run of the cell, in the store's order: the updates it took (NaN: never got there) and
  // its B_simple there (NaN: none) -- what the critical batch's bootstrap resamples.
  std::vector<double> run_updates, run_b_simple;
};

struct ReachTable {
  std::vector<ReachCell> cells;  // rows in their order, columns within
  std::vector<size_t> best;      // per row with a complete cell: the index of its best cell
  std::vector<std::string> notes;
};

// InputError (`fathom export reach`, the field) for a sweep without runs, an axis no run has.
ReachTable reach_table(const db::Store& store, const std::string& sweep,
                       const ReachOptions& options);
// The same over runs already selected (a report's; options.where is theirs already).
ReachTable reach_table(const db::Store& store, const SweepRuns& selected, const std::string& sweep,
                       const ReachOptions& options);

// The least demanding value every finished run of `selected` reached at some point (the highest
// of their lowest losses; the lowest of their highest BLEUs): a target every finished run's cell
// is complete at, where the Time to target tab starts. nullopt without a finished run, or where
// one lacks the curve.
std::optional<double> target_every_run_reached(const db::Store& store, const SweepRuns& selected,
                                               const std::string& metric,
                                               std::optional<bool> lower_is_better = {});

// S = S_min + S_min B_crit / B by least squares in 1 / B over the points (B, S), at least 3.
struct CriticalBatchFit {
  double s_min = 0, b_crit = 0, r2 = 0;
  int points = 0;
  bool diminishing = false;  // S_min > 0 and B_crit > 0: larger batches help less and less
  // Over a table's best cells (experiments/critical_batch_interval.h): 95 % expanded percentile
  // bootstrap intervals of B_crit and of B_crit / B_simple (NaN where not drawn; +inf where the
  // draws leave B_crit unbounded above), the draws fitted and left out (under 3 complete rows), and
  // the share of those fitted whose every row kept its best cell; ratio_draws: the fitted draws
  // whose best cells all read B_simple (the others widen the ratio's interval:
  // critical_batch_interval.h).
  double b_crit_lo = NAN, b_crit_hi = NAN, ratio_lo = NAN, ratio_hi = NAN;
  int draws = 0, unfit = 0, ratio_draws = 0;
  double best_kept = NAN;
  // The degrees of freedom the intervals' ends are expanded for (the best cells' runs less one
  // each, pooled; experiments/critical_batch_interval.h).
  double interval_df = 0;
};
std::optional<CriticalBatchFit> fit_critical_batch(const std::vector<double>& batch,
                                                   const std::vector<double>& updates);

}  // namespace fathom::experiments
