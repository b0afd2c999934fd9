// `fathom report SWEEP|RUN --out DIR [--where EXPR]`: a Markdown report of a sweep (or of the
// part of it a filter keeps) or of a run (experiments/report.h): runs and outcomes, comparison
// tables, training curves.
#include <iostream>
#include <memory>

#include "base/util/error.h"
#include "base/util/strings.h"
#include "cli/commands.h"
#include "cli/paired_tests.h"
#include "db/metric_names.h"
#include "experiments/report.h"
#include "experiments/value_at_budget.h"

namespace fathom::cli {
namespace {

struct ReportArgs {
  std::string target, out = "report", metrics, rows, cols, where, agg = "mean",
                      select_by = db::metric::kValidLoss, at, reach;
  bool fit_critical_batch = false;
};

void report(const ReportArgs& a, const GlobalOptions& global) {
  const auto store = db::Store::open(resolve_db_path(global), db::OpenMode::ReadOnly);
  experiments::ReportOptions options;
  options.out_dir = a.out;
  if (!a.metrics.empty()) options.metrics = split(a.metrics, ',');
  if (!a.cols.empty() && a.rows.empty())
    throw InputError("fathom report", 0, "--cols", "--cols needs --rows");
  options.rows = a.rows;
  options.cols = a.cols;
  options.where = a.where;
  options.agg = a.agg == "best" ? experiments::CellAgg::Best : experiments::CellAgg::Mean;
  options.select_by = a.select_by;
  options.at = experiments::budget_option(a.at, "fathom report");
  if (!a.reach.empty()) {
    options.reach = experiments::reach_request(a.reach);
    options.reach->fit_critical_batch = a.fit_critical_batch;
  } else if (a.fit_critical_batch) {
    throw InputError("fathom report", 0, "--fit-critical-batch", "needs --reach METRIC=VALUE");
  }
  // A fork sweep's parent against each fork: its files read and counted once for all of them.
  options.paired_test = paired_tester(store, resolve_store_paths(global));
  options.seed_pooled_test = [&store, paths = resolve_store_paths(global)](
                                 const db::RunRecord& baseline,
                                 const std::vector<db::RunRecord>& seeds) {
    return seed_pooled_test(store, paths, baseline, seeds);
  };
  options.render_curves = report_curves_renderer(store, options.out_dir);
  options.render_lr_sensitivity = report_lr_sensitivity_renderer(options.out_dir);
  options.render_importance = report_importance_renderer(options.out_dir);
  options.render_budgets = report_budgets_renderer(store, options.out_dir);
  options.render_reach = report_reach_renderer(options.out_dir);
  options.render_probes = report_probes_renderer(store, options.out_dir);
  std::cout << experiments::write_report(store, a.target, options) << "\n";
}

}  // namespace

void add_report_command(CLI::App& app, GlobalOptions& global) {
  auto a = std::make_shared<ReportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "report", "A Markdown report of a sweep or a run, with tables and figures");
  cmd->add_option("target", a->target, "sweep name, or run id / name")->required();
  cmd->add_option("--out", a->out, "output directory (report.md and figures); default ./report");
  cmd->add_option("--metrics", a->metrics,
                  "final metrics for the tables, comma-separated (default "
                  "test_bleu,valid_ppl,test_ppl,test_bpb,train_time_s; those no run has are "
                  "left out)");
  cmd->add_option("--rows", a->rows,
                  "the tables' row axis (a+b joins a zip group), e.g. "
                  "model.norm+model.init+model.connection; default: the sweep's first axis");
  cmd->add_option("--cols", a->cols, "the tables' column axis, e.g. model.encoder_layers");
  cmd->add_option("--where", a->where,
                  "a sweep's report of only the runs this filter keeps, e.g. "
                  "\"model.encoder_layers=24\" (the desktop app's runs filter; the report says "
                  "which part)");
  cmd->add_option("--agg", a->agg,
                  "several variants in a cell: mean (pool them) | best (the best variant, named)")
      ->check(CLI::IsMember({"mean", "best"}));
  cmd->add_option("--select-by", a->select_by,
                  "with --agg best: the final metric a variant is chosen on (default valid_loss; "
                  "a test metric is refused)")
      ->capture_default_str();
  cmd->add_option("--at", a->at,
                  "each validation metric's table and the learning-rate sections again at this "
                  "budget (compute=FLOPS, "
                  "tokens=N, update=N or AXIS=least; `export table --at`), drawn on the figures "
                  "of its axis -- instead of at equal compute, which a sweep of unequal costs "
                  "gets by itself");
  cmd->add_option("--reach", a->reach,
                  "a section of the updates and tokens each table cell's runs took to first "
                  "reach a value of a curve, e.g. valid_loss=2.0 (`fathom export reach`)");
  cmd->add_flag("--fit-critical-batch", a->fit_critical_batch,
                "with --reach and the batch as the rows: McCandlish et al.'s critical batch "
                "fitted to the rows' best cells");
  cmd->callback([a, &global] { report(*a, global); });
}

}  // namespace fathom::cli
