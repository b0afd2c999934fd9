#pragma once
// `fathom report SWEEP|RUN --out DIR`: one Markdown file with everything stored about a sweep
// (or a single run): what ran and how it ended, the comparison tables of its axes for the
// main metrics, and figures. Torch-free; figures come through a callback so that a build
// without Qt still writes the tables.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "db/metric_names.h"
#include "db/store.h"
#include "experiments/comparison_table.h"
#include "experiments/lr_sensitivity.h"
#include "experiments/paired_test.h"
#include "experiments/report_budget.h"
#include "experiments/report_importance.h"
#include "experiments/report_reach.h"

namespace fathom::experiments {

// A figure the report asks for: training curves of `runs` for `metrics`.
struct CurvesRequest {
  std::string title;
  std::vector<int64_t> runs;
  // Drawn beside `runs`, each its own curve, never grouped or coloured by colour_by: a fork
  // sweep's parent (plot::CurveQuery::references).
  std::vector<int64_t> references;
  std::vector<std::string> metrics;
  std::string colour_by;  // axis key that colours the runs ("" = one colour per run)
  std::string file_stem;  // e.g. "curves-valid_loss"; the renderer adds the extension
  // Set: one curve per group of runs (plot/run_groups.h; "axes" = every axis but the seed),
  // the mean over its seeds with a +-1 std band. A sweep with several seeds is drawn so.
  std::vector<std::string> group_by;
  bool log_y = false;  // perplexities span an order of magnitude
  // The x axis, as `fathom export plot curves --x` names it: update, or compute where the
  // runs' costs differ (a depth sweep).
  std::string x = "update";
  // Set: the budget the report's tables read the runs at besides their ends (report_budget.h:
  // --at's, or equal compute), drawn with each run's (group's) value read there; x its axis.
  std::optional<Budget> at;
  // Set: a "Time to a target" section over the tables' layout (experiments/report_reach.h).
  std::optional<ReachRequest> reach;
};

struct ReportOptions {
  std::string out_dir;
  // Those no run has are left out (a language model has no BLEU, a translation model no bpb).
  std::vector<std::string> metrics = {db::metric::kTestBleu, db::metric::kValidPpl,
                                      db::metric::kTestPpl, db::metric::kTestBpb,
                                      db::metric::kTrainTime};
  // The comparison tables' layout; empty rows: the sweep's first axis group by its second,
  // pooling the rest. A depth study asks for methods by depth, each at its best learning rate:
  // rows "model.norm+model.init", cols "model.encoder_layers", agg Best.
  std::string rows, cols;
  // A sweep's report of only the runs this filter keeps (experiments/run_query.h), e.g.
  // "model.encoder_layers=24": every section reads those runs, and the header says which.
  std::string where;
  // Set: each validation metric's table and the learning-rate sections again at this budget
  // (`--at`, value_at_budget.h; a least one found among the finished runs), instead of the
  // tables at equal compute where the runs' costs differ; drawn on the figures of its axis.
  std::optional<Budget> at;
  // Set: a "Time to a target" section over the tables' layout (experiments/report_reach.h).
  std::optional<ReachRequest> reach;
  CellAgg agg = CellAgg::Mean;
  std::string select_by =
      db::metric::kValidLoss;  // CellAgg::Best: the metric variants are chosen on
  // Tests one run's test BLEU (perplexity) against another's (a fork against its parent: a fork's
  // report, a fork sweep's "Against the parent"); null: no test, the report names `fathom compare`.
  PairedTester paired_test;
  // Tests a fork sweep's configuration -- its runs alike but for the seed -- against the
  // parent over their seeds (experiments/report_fork_seeds.h); null: no such section.
  SeedPooledTester seed_pooled_test;
  // Renders a figure into out_dir and returns its file name relative to out_dir, or "" when
  // figures are not available (a build without Qt).
  std::function<std::string(const CurvesRequest&)> render_curves;
  // The same for the learning-rate sensitivity figure (file stem given); null: no figure.
  std::function<std::string(const LrSensitivity&, const std::string&)> render_lr_sensitivity;
  // The same for the hyperparameter-importance figure; null: no figure.
  ImportanceRenderer render_importance;
  // The same for the time-to-target section's figure (report_reach.h); null: no figure.
  ReachRenderer render_reach;
  // The same for a metric against depth at the budget, under a table at a budget over three or
  // more depths (report_budget.h); null: no figure.
  BudgetsRenderer render_budgets;
  // The training probes (docs/probes.md): one heatmap per run of `probe`, every run on one
  // colour scale, files "<stem>-run<ID>.png"; returns the file names in the runs' order (empty
  // without Qt). Null: no probe figures.
  std::function<std::vector<std::string>(
      const std::vector<std::pair<int64_t, db::ProbeSeries>>& runs, const std::string& probe,
      const std::string& stem)>
      render_probes;
};

// Axis keys of a sweep grouped as the sweep varied them (a zip group is one group), seeds left
// out. `layout` is the runs' `sweep.axes` tag ("a+b,c,train.seed": groups by ',', keys by '+',
// written by `fathom sweep`); without it, keys whose values determine each other across the
// runs are grouped.
std::vector<std::vector<std::string>> axis_groups(
    const std::vector<std::map<std::string, std::string>>& axes, const std::string& layout,
    const std::string& seed_key = "train.seed");

// Whether `runs` were trained on different learning-rate schedules -- train.schedule, its
// warmup, decay or length, not only another peak rate: a report then draws their lr curves,
// which tell them apart. Read by the store's JSON functions (Store::config_values).
bool schedules_differ(const db::Store& store, const std::vector<db::RunRecord>& runs);

// Writes out_dir/report.md for the sweep named `target`, or for one run (an id or a run name)
// when no sweep has that name. Returns the report's path. InputError when neither exists.
std::string write_report(const db::Store& store, const std::string& target,
                         const ReportOptions& options);

}  // namespace fathom::experiments
