#pragma once
// The papers' result tables from a sweep: rows and columns are two axes (e.g. depth by
// method), each cell one metric over the runs that share those two axis values -- the other
// axes and the seeds. A cell where nothing trained shows why (`diverged@step`, `failed`, ...).
// Torch-free, so the GUI's comparison view uses the same code as `fathom export table`.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "db/final_model_tag.h"
#include "db/metric_names.h"
#include "db/store.h"
#include "experiments/computed_with.h"
#include "experiments/sweep_runs.h"

namespace fathom::experiments {

// What the table needs of one run.
struct TableRun {
  int64_t id = 0;
  std::string status;  // runs.status
  std::optional<int64_t> diverged_step;
  std::map<std::string, std::string> axes;  // dotted key -> value as written in the sweep
  std::optional<double> metric;             // the final metric, if the run recorded it
  // Set by use_run_value(): the update where `metric`, now the run's best or last, was logged.
  std::optional<int64_t> metric_step;
  // Every finite final metric of the run: a variant is chosen on one of them (select_by).
  std::map<std::string, double> final_metrics;
  // Its tag final_model: which model its final valid_* and test_* metrics measure (the best
  // checkpoint for runs from before the tag).
  db::FinalModel final_model;
  // Its OpenBLAS kernels, device and code revision: the table notes where its runs differ.
  ComputedWith computed_with;
  // Where train.patience ended it (its updates; tag early_stop), none when it trained to
  // train.max_updates or was resumed past its stop: the table notes runs of unequal length.
  std::optional<int64_t> stopped_early_at;
};

// Which value of a run a table or curve takes for its metric.
//  Final: the run's final metric -- for validation and test metrics the best checkpoint's
//         (early stopping on validation).
//  Best:  its best logged point over training (lowest loss or perplexity, highest BLEU).
//  Last:  its last logged point, the value at the end of training: what followed the best
//         checkpoint (a run that trained, then blew up) shows. Not finite: +infinity.
// A run without a curve of the metric (test_bleu is measured once) keeps its final value.
enum class RunValue { Final, Best, Last };

// "final", "best", "last" (a CLI's --value); InputError (`command`, field --value) otherwise.
RunValue run_value_named(const std::string& name, const std::string& command);

// A run's value of an axis key, "va / vb" for a composite "a+b" (the keys of one zip group);
// nullopt when it lacks a part.
std::optional<std::string> composite_value(const std::map<std::string, std::string>& axes,
                                           const std::string& key);

enum class CellAgg { Mean, Best };  // several runs in a cell: pool them, or take the best variant
// What follows a cell's mean: nothing, the sample std over its seeds, or half the width of the
// 95 % Student-t interval of the mean (base/metrics/statistics.h).
enum class Spread { None, Std, Ci95 };
enum class BoldBest { None, Column, Row };
enum class MetricDirection { Auto, HigherIsBetter, LowerIsBetter };
// How the p-values of a table's tests against the `versus` row are corrected for their number:
// Holm's step-down adjustment over every test in the table (base/metrics/statistics.h), or none.
enum class PAdjust { None, Holm };

// A budget on an x axis at which a table takes each run's value instead of at its end
// (experiments/value_at_budget.h): `--at compute=2e15`.
struct Budget {
  std::string axis;  // update | tokens | compute
  double x = 0;      // > 0
  // Relative slack on both sides: a point at or below x (1 + tolerance) is inside the budget,
  // a run that got to x (1 - tolerance) reached it. Rounding only, unless a caller says
  // otherwise (a report's equal compute: seeds of one model differ by a fraction of a percent,
  // which would otherwise cut all but the cheapest at their previous validation).
  double tolerance = 1e-12;
  // `--at compute=least`: x is still to be found -- the least any finished run of the selection
  // reached on the axis (value_at_budget.h: resolve_least), the cheapest run's whole training.
  bool least = false;
  // x was found from AXIS=least: a command suggested for the same runs says AXIS=least again
  // (its number, printed, would lose the slack and the digits the runs' last points have).
  bool found_least = false;
};

// How each run's value of a metric is read: RunValue at the run's end, or at a budget
// (value_at_budget.h). Converts from either, so a caller that never cuts passes a RunValue.
struct RunReading {
  RunValue value = RunValue::Final;
  std::optional<Budget> at;
  RunReading(RunValue v = RunValue::Final) : value(v) {}  // NOLINT: implicit on purpose
  RunReading(Budget b) : at(std::move(b)) {}              // NOLINT: implicit on purpose
};

struct TableOptions {
  // Axis keys; "a+b+c" joins several keys into one label "va / vb / vc" (a zip group, e.g.
  // model.norm+model.init+model.connection as the "method").
  std::string rows;    // axis key of the rows
  std::string cols;    // axis key of the columns; "" = one column, named after the metric
  std::string metric;  // final metric (runs' final_metrics), e.g. test_bleu, valid_ppl
  CellAgg agg = CellAgg::Mean;
  Spread spread = Spread::None;
  int digits = 2;  // decimals in Markdown and LaTeX (CSV keeps 6 significant digits)
  BoldBest bold = BoldBest::None;
  MetricDirection direction = MetricDirection::Auto;  // Auto: BLEU/accuracy up, loss/ppl down
  std::string seed_key = "train.seed";  // never a "variant": seeds are what a cell averages
  // Which value of each run the cells hold (use_run_value); the note says which.
  RunValue value = RunValue::Final;
  // Instead: each run's value at this budget, and select_by's for choosing a variant
  // (experiments/value_at_budget.h); sweep_comparison_table applies it.
  std::optional<Budget> at;
  // CellAgg::Best: the final metric a variant is chosen on, the mean over its seeds -- the
  // validation loss by default. Choosing on a test metric (the one then reported, often) is
  // model selection on the test set: refused unless `select_on_test`, and then the note says
  // so. Any metric is reported for the variant chosen.
  std::string select_by = db::metric::kValidLoss;
  bool select_on_test = false;
  // A row label: every other row's cells are tested against this row's cell of the same
  // column, Welch's t-test over their seeds (TableCell::p).
  std::string versus;
  PAdjust p_adjust = PAdjust::Holm;
};

struct TableCell {
  int runs = 0;                     // runs in the cell
  int used = 0;                     // finished runs whose metric went into the value
  std::optional<double> value;      // mean (or best variant's mean); none when nothing finished
  std::optional<double> std;        // sample std of the runs behind `value` (needs >= 2)
  std::optional<double> ci95;       // half the width of the 95 % t-interval of the mean (n >= 2)
  std::vector<double> values;       // the finished runs' values behind `value`
  std::vector<int64_t> value_runs;  // the run behind each of `values`, in their order
  // Against the `versus` row's cell of its column: Welch's two-sided p-value over the two
  // cells' seeds. None for the versus row itself, and when a side has fewer than two seeds
  // (then p_needs_seeds: the table says "n < 2" instead of a p-value).
  // With PAdjust::Holm, `p` is adjusted over the table's tests and `p_raw` is the test's own.
  std::optional<double> p, p_raw;
  bool p_needs_seeds = false;
  int diverged = 0;  // runs that diverged (excluded from the value)
  std::optional<int64_t> first_diverged_step;
  std::string status;  // when there is no value: diverged@S, failed, crashed, ...
  bool best = false;   // bold: best of its column or row
  // CellAgg::Best: the variant behind the value, as "lr=0.001" (each variant axis by the last
  // part of its key, comma-separated). A table that picks each method's best learning rate
  // says which one it picked.
  std::string variant;
  // The runs the cell stands for, any status: the chosen variant's (CellAgg::Best; all of the
  // cell's when no variant finished) or every run of the cell (Mean). A report draws them.
  std::vector<int64_t> run_ids;
};

struct ComparisonTable {
  std::string row_key, col_key, metric;
  std::vector<std::string> row_labels, col_labels;  // axis values, first-seen order (= sweep file)
  std::vector<std::vector<TableCell>> cells;        // [row][col]
  Spread spread = Spread::None;
  std::string versus;  // the row the others' p-values are against; "" = none
  PAdjust p_adjust = PAdjust::None;
  int tests = 0;  // cells given a p-value: the family Holm's adjustment runs over
  int digits = 2;
  // The cells' run counts differ: each cell with a value shows its n (renderers, GUI); when
  // they agree the note states the one n instead.
  bool show_n = false;
  // Cells name their chosen variant (CellAgg::Best over a table that has variants).
  bool show_variant = false;
  // Axes besides the seed that a cell's mean runs over (CellAgg::Mean over a table that has
  // variants): its interval is then over those runs, not over seeds alone.
  std::vector<std::string> pooled;
  // Lines printed under the table: what a marker means, how cells were aggregated.
  std::vector<std::string> notes;
};

// computed_with.h's note over table runs (their computed_with): where the runs' OpenBLAS
// kernels, devices or code revisions differ, which runs have which; none when all agree.
std::optional<std::string> computed_differently_note(const std::vector<TableRun>& runs);

// Where some of the runs behind the values stopped early (train.patience): "⚠ 3 of 12 runs
// stopped early ... at updates 225-310: their values are of fewer updates than the others'";
// where all did, which updates; none where none did.
std::optional<std::string> early_stop_note(const std::vector<TableRun>& runs);

// Builds the table; throws InputError (field = the option) when an axis or metric is unknown,
// when variants would be chosen on a metric no run has (--select-by) or on a test metric
// without select_on_test, or when `versus` is no row.
ComparisonTable build_comparison_table(const std::vector<TableRun>& runs,
                                       const TableOptions& options);

// Runs of sweep `sweep` in the store with every axis tag and the final metric `metric`. A key
// that is not an axis of the sweep (e.g. a zip partner) is read from the run's config.
// One stored run as a table entry: its `axis.*` tags, then each of `config_keys` (composite
// `a+b` keys split) that is not an axis read from its config, and the final `metric` if finite.
TableRun table_run(const db::RunRecord& run, const std::map<std::string, std::string>& tags,
                   const std::string& metric, const std::vector<std::string>& config_keys);

std::vector<TableRun> load_table_runs(const db::Store& store, const std::string& sweep,
                                      const std::string& metric,
                                      const std::vector<std::string>& config_keys);
// The same of runs already selected (experiments/sweep_runs.h: a sweep's runs under --where).
std::vector<TableRun> load_table_runs(const db::Store& store, const SweepRuns& selected,
                                      const std::string& metric,
                                      const std::vector<std::string>& config_keys);

// Each run's best value of options.metric over its stored curve (the lowest or highest point,
// by options' direction: perplexities and losses down, BLEU up) and its step, in place of the
// final value; a run without a curve of that metric (test_bleu is measured once) keeps its
// final value. Diverged runs are changed too but never enter a cell.
void use_best_of_run(std::vector<TableRun>& runs, const db::Store& store,
                     const TableOptions& options);

// Each run's last logged point of `metric` and its step, in place of the final value (which is
// the best checkpoint's): the value at the end of training. A last point that is not finite
// becomes +infinity (a loss that blew up); a run without a curve keeps its final value.
void use_last_of_run(std::vector<TableRun>& runs, const db::Store& store,
                     const std::string& metric);

// options.value of options.metric in place of each run's final value (RunValue).
void use_run_value(std::vector<TableRun>& runs, const db::Store& store,
                   const TableOptions& options);

// `fathom export table` from the store: the runs of `sweep` that the filter `where` keeps
// (experiments/sweep_runs.h; "" keeps all), each run's options.value,
// the table, and a note naming the filter when there is one.
ComparisonTable sweep_comparison_table(const db::Store& store, const std::string& sweep,
                                       const TableOptions& options, const std::string& where = "");

// Renderers. CSV: RFC 4180 quoting, numbers unformatted so a spreadsheet reads them as numbers,
// std in its own column. Markdown: a GitHub table. LaTeX: a booktabs tabular, special
// characters escaped.
std::string table_to_csv(const ComparisonTable& table);
std::string table_to_markdown(const ComparisonTable& table);
std::string table_to_latex(const ComparisonTable& table);

// A tested cell's p-value as the tables print it: "p=0.012", "p<0.001", "n < 2" (too few seeds
// to test), or "" for a cell not tested.
std::string p_value_text(const TableCell& cell);

// LaTeX text-mode escaping of & % $ # _ { } ~ ^ and backslash.
std::string latex_escape(const std::string& text);

}  // namespace fathom::experiments
