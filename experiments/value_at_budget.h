#pragma once
// A table's runs compared at an equal budget rather than at their ends: each run's value of a
// metric at `--at compute=2e15` (training FLOPs, core/train/training_flops.h), `tokens=5e7`
// (target tokens) or `update=4000` -- its last point at or before the budget, which is what the
// run had reached by then (a validation every train.valid_every updates: the last one inside
// the budget). Depth-scaling studies compare models of different costs this way (Dey et al.
// 2025 compare at equal FLOPs); a run's end would favour the one that was given more.
//
// Per run, in the table's copy only: a run whose curves reach the budget counts as finished at
// it (a divergence after the budget is after it: the note counts such runs); one that diverged
// before it stays diverged; one that ended, failed or is still running short of the budget is
// left out (the note names them), as is one without the axis's curve (trained before Fathom
// logged train_flops) or without a point of the metric inside the budget.
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "db/store.h"
#include "experiments/comparison_table.h"

namespace fathom::experiments {

// "compute=2e15", "tokens=5e7", "update=4000", or AXIS=least (Budget::least: compute and
// tokens within kLeastTolerance, since seeds of one model see different token counts);
// InputError naming `command` and --at otherwise.
Budget parse_budget(const std::string& text, const std::string& command);
inline constexpr double kLeastTolerance = 0.02;
// A run read below this share of the budget (its last validation inside it came that much
// earlier) is named in a note: it is compared having trained less than the others.
inline constexpr double kReadClose = 0.95;

// A least budget made definite: x the least of `finished` runs' last point on its axis
// (train_flops, target_tokens, or the update of that last point -- of the last train_loss or
// valid_loss point for a run stored before target tokens were logged). InputError (`command`,
// --at) where none of them has the curve. Any other budget is returned as it is.
Budget resolve_least(const Budget& b, const db::Store& store, const std::vector<int64_t>& finished,
                     const std::string& command);
// The finished runs of `runs`: those a least budget is found among.
std::vector<int64_t> finished_runs(const std::vector<TableRun>& runs);
std::vector<int64_t> finished_runs(const std::vector<db::RunRecord>& runs);
// `share` (0 < share <= 1) of `b`, rounded down to three significant digits (every run that
// reaches b reaches it; 2.63e+11, not 2.63952e+11, where it is named) with no slack beyond
// rounding; `b` itself for a share of 1. The budgets below a found least one, at which the best
// depth's growth is read (the report, the Scaling tab).
Budget budget_share(const Budget& b, double share);
// The shares of a budget the best depth's growth is read at by default: a quarter, a half, all.
inline constexpr double kGrowthShares[] = {0.25, 0.5, 1.0};
// "compute=2e+15": the budget as --at and train.valid_at read it (a least one by its number).
std::string budget_setting(const Budget& b);
// --at's text in a command suggested for the same runs: "compute=least" for a least budget,
// found or not (the same selection finds the same number, with its slack), budget_setting
// otherwise.
std::string budget_argument(const Budget& b);
// "compute <= 2e+15 FLOPs", "update <= 4000": what the table's note says.
std::string budget_text(const Budget& b);

// The curves a reading at several budgets needs at each: kept, so that each run's curve comes
// from the store once however many budgets read it (export plot budgets, the Scaling tab).
class CurveCache {
 public:
  const std::vector<db::MetricPoint>& series(const db::Store& store, int64_t run,
                                             const std::string& metric);

 private:
  std::map<std::pair<int64_t, std::string>, std::vector<db::MetricPoint>> curves_;
};

// Replaces each run's options.metric, and its final options.select_by (what a variant is
// chosen on), by their values at *options.at (above); returns the notes that say which runs
// were left out, read short of the budget (kReadClose), or counted although they ended
// otherwise after it. InputError (`command`,
// field --at) for a test metric: it is measured once, at the end, and has no curve to cut.
std::vector<std::string> use_value_at_budget(std::vector<TableRun>& runs, const db::Store& store,
                                             const TableOptions& options,
                                             const std::string& command = "fathom export table",
                                             CurveCache* cache = nullptr);

// Every reader of a metric's run values (tables, verdicts, LR sensitivity and transfer,
// importance) goes through here: options.at set, use_value_at_budget and its notes (a least
// budget resolved over `runs` first, in `options` too, so that what the caller says of the
// budget next is the number); otherwise use_run_value (options.value) and none.
std::vector<std::string> read_run_values(std::vector<TableRun>& runs, const db::Store& store,
                                         TableOptions& options, const std::string& command,
                                         CurveCache* cache = nullptr);

// The same for a reader that has a metric and a RunReading rather than a table's options (LR
// sensitivity, importance): `reading.at` comes back found where it was a least budget.
std::vector<std::string> read_run_values(std::vector<TableRun>& runs, const db::Store& store,
                                         const std::string& metric, RunReading& reading,
                                         const std::string& command);

// --at's text for a CLI (nullopt for ""), as parse_budget reads it.
std::optional<Budget> budget_option(const std::string& text, const std::string& command);
// A CLI's --value and --at (which excludes it; "" for none) as one reading.
RunReading run_reading_named(const std::string& value, const std::string& at,
                             const std::string& command);

}  // namespace fathom::experiments
