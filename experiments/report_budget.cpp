#include "experiments/report_budget.h"

#include <algorithm>
#include <cstdio>

#include "base/util/strings.h"
#include "db/metric_names.h"
#include "db/metric_presentation.h"
#include "db/run_status.h"
#include "experiments/axis_optimum.h"
#include "experiments/optimum_scaling.h"
#include "experiments/value_at_budget.h"

namespace fathom::experiments {

double cost_spread(const std::vector<db::RunRecord>& runs) {
  double lo = 0, hi = 0;
  for (const auto& r : runs) {
    const auto flops = r.final_metrics.find(db::metric::kTrainFlops);
    const auto tokens = r.final_metrics.find(db::metric::kTrainTokens);
    if (flops == r.final_metrics.end() || tokens == r.final_metrics.end() || tokens->second <= 0)
      continue;
    const double per_token = flops->second / tokens->second;
    lo = lo > 0 ? std::min(lo, per_token) : per_token;
    hi = std::max(hi, per_token);
  }
  return lo > 0 ? hi / lo : 1.0;
}

std::optional<Budget> equal_compute_budget(const db::Store& store,
                                           const std::vector<db::RunRecord>& runs) {
  if (cost_spread(runs) < 1.05) return std::nullopt;
  // The curves' last points, not the final metric: the budget must be one the curves reach.
  std::vector<int64_t> finished;
  for (const auto& r : runs)
    if (r.status == db::status::kFinished &&
        store.last_metric_step(r.id, db::metric::kTrainFlops) >= 0)
      finished.push_back(r.id);
  if (finished.size() < 2) return std::nullopt;
  return resolve_least(parse_budget("compute=least", "fathom report"), store, finished,
                       "fathom report");
}

namespace {

// The `fathom export plot budgets` command that draws `r` at `at`: the same runs (sweep,
// where), the same variants (agg, select_by) and the budgets as the report found them -- a
// least one as least, so that it is found again with its slack.
std::string budgets_command(const BudgetsRequest& r, const std::vector<Budget>& at) {
  std::string command = "fathom export plot budgets --sweep " + shell_word(r.sweep);
  if (!r.where.empty()) command += " --where " + shell_word(r.where);
  command += " --metric " + r.metric + " --x " + r.x;
  if (!r.rows.empty()) command += " --rows " + r.rows;
  if (r.agg == CellAgg::Best) command += " --agg best --select-by " + r.select_by;
  command += " --at ";
  for (size_t i = 0; i < at.size(); ++i) command += (i ? "," : "") + budget_argument(at[i]);
  return command;
}

// Under a table at a budget whose columns -- or, in a table of one column, rows -- are three or
// more numbers (depths): each line's best value there (experiments/axis_optimum.h), the
// compute-optimal depth of each method.
void best_of_axis(std::ostream& out, const ComparisonTable& table, const Budget& budget,
                  BudgetsRequest request, const BudgetsRenderer& render) {
  // One column: the rows are the axis and the metric the one line.
  const ComparisonTable t = along_numeric_axis(table);
  if (numeric_columns(t).size() < 3) return;
  // A zip group (encoder_layers+decoder_layers) by its first key, as its labels' first part.
  const std::string first = t.col_key.substr(0, t.col_key.find('+'));
  const std::string axis = short_axis_key(t.col_key), lines = t.row_key;
  const bool higher = db::metric::higher_is_better(table.metric).value_or(false);
  request.x = first;
  request.rows = lines;
  request.metric = table.metric;
  request.at = budget;
  request.file_stem = "budgets-" + table.metric;
  out << "Best " << axis << " at this budget: the vertex of the parabola in ln(" << axis
      << ") through the best mean and its two neighbours, with a 95 % interval over seeds: the "
         "values where the curve's slope is within noise of zero, as methods.md s7 says (`"
      << budgets_command(request, {budget}) << "` draws it):\n\n";
  bool at_an_end = false;
  for (const AxisOptimum& optimum : row_optima(t, axis, higher)) {
    out << "- " << optimum.text() << "\n";
    at_an_end = at_an_end || (optimum.points >= 3 && !optimum.best.bracketed);
  }
  out << "\n";
  if (at_an_end)
    out << "A best " << axis << " at the grid's end is no optimum: `fathom sweep extend "
        << "SWEEP.yaml --axis " << first << " --at " << budget_argument(budget)
        << "` writes the sweep file of the next " << axis << " for those lines.\n\n";
  if (!render) return;
  if (const std::string file = render(request); !file.empty())
    out << "![" << table.metric << " against " << axis << " at the budget](" << file << ")\n\n";
}

// Under a table over three or more depths: how each line's best depth grows with the budget,
// read at a quarter, a half and all of it (experiments/optimum_scaling.h). `o` is the table's
// options (its metric, its budget).
void best_axis_growth(std::ostream& out, const db::Store& store, const SweepRuns& selected,
                      const TableOptions& o, const ComparisonTable& table, BudgetsRequest request) {
  const ComparisonTable at_budget = along_numeric_axis(table);
  if (numeric_columns(at_budget).size() < 3 || !o.at) return;
  std::vector<Budget> budgets;
  std::vector<ComparisonTable> tables;
  const std::vector<TableRun> loaded = load_table_runs(store, selected, o.metric, {o.rows, o.cols});
  CurveCache curves;  // each run's curves read once for the shares
  for (double share : kGrowthShares) {
    if (share >= 1) {
      budgets.push_back(*o.at);
      tables.push_back(at_budget);
      continue;
    }
    TableOptions part = o;
    part.at = budget_share(*o.at, share);
    std::vector<TableRun> runs = loaded;
    read_run_values(runs, store, part, "fathom report", &curves);
    if (std::none_of(runs.begin(), runs.end(), [](const TableRun& r) { return r.metric; }))
      return;  // no run validated that early: nothing to grow from
    budgets.push_back(*part.at);
    tables.push_back(along_numeric_axis(build_comparison_table(runs, part)));
  }
  const std::string axis = short_axis_key(at_budget.col_key);
  std::vector<double> xs;
  for (const Budget& b : budgets) xs.push_back(b.x);
  const std::vector<OptimumScaling> scalings = row_scalings(
      xs, tables, axis, o.at->axis, db::metric::higher_is_better(o.metric).value_or(false));
  request.x = at_budget.col_key.substr(0, at_budget.col_key.find('+'));
  request.rows = at_budget.row_key;
  request.metric = o.metric;
  out << "How the best " << axis << " grows with " << o.at->axis << ": the exponent a of best "
      << axis << " ~ " << o.at->axis
      << "^a, by least squares over a quarter, a half and all of this budget where the best is "
         "bracketed, with a 95 % bootstrap interval joint across them (`"
      << budgets_command(request, budgets) << " --scaling-out FILE` draws it):\n\n";
  for (const OptimumScaling& s : scalings) out << "- " << s.text() << "\n";
  out << "\n";
}

}  // namespace

std::optional<Budget> report_budget(const db::Store& store, const std::vector<db::RunRecord>& runs,
                                    const std::optional<Budget>& asked) {
  if (!asked) return equal_compute_budget(store, runs);
  return resolve_least(*asked, store, finished_runs(runs), "fathom report");
}

void budget_tables(std::ostream& out, const db::Store& store, const std::string& sweep,
                   const SweepRuns& selected, const std::vector<std::string>& metrics,
                   const TableOptions& layout, const std::optional<Budget>& budget, bool asked,
                   const BudgetsRenderer& render) {
  if (!budget) return;
  std::vector<std::string> curves;  // validation metrics: a test metric has no curve to cut
  for (const auto& m : metrics)
    if (m.rfind("valid_", 0) == 0) curves.push_back(m);
  if (curves.empty()) curves.push_back(db::metric::kValidLoss);
  char spread[32];
  std::snprintf(spread, sizeof spread, "%.2f", cost_spread(selected.runs));
  for (const auto& metric : curves) {
    auto runs = load_table_runs(store, selected, metric, {layout.rows, layout.cols});
    TableOptions o = layout;
    o.metric = metric;
    o.at = budget;
    const std::vector<std::string> left_out = read_run_values(runs, store, o, "fathom report");
    if (std::none_of(runs.begin(), runs.end(), [](const TableRun& r) { return r.metric; }))
      continue;
    ComparisonTable table = build_comparison_table(runs, o);
    table.notes.insert(table.notes.end(), left_out.begin(), left_out.end());
    if (asked)
      out << "### " << metric << " at " << budget_text(*budget) << "\n\n"
          << "Each run at the budget `--at` asked for: its last validation inside it, not its "
             "end (`fathom export table --at`).\n\n";
    else
      out << "### " << metric << " at equal compute\n\n"
          << "The runs' training costs differ (the costliest " << spread
          << "x the cheapest, in FLOPs per target token): each run at " << budget_text(*budget)
          << ", the cheapest finished run's whole training -- its last validation inside it, "
             "not its end (`fathom export table --at compute=least`).\n\n";
    out << table_to_markdown(table) << "\n";
    BudgetsRequest request;  // the figure's runs and variants as the table's
    request.sweep = sweep;
    request.where = selected.where;
    request.agg = layout.agg;
    request.select_by = layout.select_by;
    best_of_axis(out, table, *budget, request, render);
    best_axis_growth(out, store, selected, o, table, request);
  }
}

}  // namespace fathom::experiments
