#pragma once
// The sweep report's runs at a budget `fathom report --at` asks for, or, by itself, its runs
// of unequal cost (a depth or width sweep: FLOPs per target token that
// differ by 5 % or more) compared at equal compute as well as at their ends: "### valid_ppl at
// equal compute", each run's last validation inside the cheapest finished run's whole training
// (experiments/value_at_budget.h) -- where a deeper model that wins at equal updates may lose.
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "db/store.h"
#include "experiments/comparison_table.h"
#include "experiments/sweep_runs.h"

namespace fathom::experiments {

// How many times the costliest run's training FLOPs per target token the cheapest one's is
// (final train_flops / train_tokens); 1 where fewer than two runs say.
double cost_spread(const std::vector<db::RunRecord>& runs);

// The budget every finished run reaches when costs differ (cost_spread >= 1.05): `--at
// compute=least`, the least of the finished runs' last logged train_flops, within
// kLeastTolerance (the cheapest model's other seeds, a fraction of a percent dearer, keep their
// last validation). Nullopt for runs of equal cost, or fewer than two finished runs with the
// curve.
std::optional<Budget> equal_compute_budget(const db::Store& store,
                                           const std::vector<db::RunRecord>& runs);

// The budget a sweep's report reads its runs at besides their ends: `asked` (`fathom report
// --at`; a least one found among the finished `runs`), else equal_compute_budget.
std::optional<Budget> report_budget(const db::Store& store, const std::vector<db::RunRecord>& runs,
                                    const std::optional<Budget>& asked);

// A figure of a metric against a depth axis at a budget (`fathom export plot budgets`, drawn by
// plot/budgets_figure.h through a callback: the report is torch- and Qt-free).
struct BudgetsRequest {
  std::string sweep, where;
  std::string x;     // the depth axis's key (a zip group's first)
  std::string rows;  // a line per value of this axis; "" one line
  std::string metric;
  Budget at;
  CellAgg agg = CellAgg::Mean;  // and select_by: as the table beside it chose variants
  std::string select_by;
  std::string file_stem;  // the renderer adds the extension
};
// Draws it into the report's folder; the file's name there, "" where figures are not built.
using BudgetsRenderer = std::function<std::string(const BudgetsRequest&)>;

// The tables at `budget` (report_budget) of each validation metric of `metrics` (valid_loss
// where none is): "### valid_ppl at equal compute", or at the budget named where `asked`;
// `layout` gives rows, cols, agg, select_by; nothing without a budget. Under a table over three
// or more depths, each line's best depth there (experiments/axis_optimum.h) and, with a
// `render`, its figure.
void budget_tables(std::ostream& out, const db::Store& store, const std::string& sweep,
                   const SweepRuns& selected, const std::vector<std::string>& metrics,
                   const TableOptions& layout, const std::optional<Budget>& budget, bool asked,
                   const BudgetsRenderer& render = nullptr);

}  // namespace fathom::experiments
