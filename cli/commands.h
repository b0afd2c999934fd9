#pragma once
// Each `fathom` sub-command lives in its own cli/cmd_*.cpp and registers itself here,
// called once from build_app() (cli/app.cpp). A command's callback throws fathom::InputError for
// bad input; main() prints it and exits with status 2.
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "db/records.h"
#include "db/run_paths.h"

namespace fathom {
namespace experiments {
struct CurvesRequest;       // experiments/report.h
struct LrSensitivity;       // experiments/lr_sensitivity.h
struct HparamImportance;    // experiments/hparam_importance.h
struct BudgetsRequest;      // experiments/report_budget.h
struct ReachFigureRequest;  // experiments/report_reach.h
}  // namespace experiments
namespace db {
class Store;
}
}  // namespace fathom

namespace fathom::cli {

inline constexpr const char* kAppDescription =
    "Fathom: a workbench for research on training deep Transformers";

// The exports' `--where EXPR` (experiments/sweep_runs.h): only part of a sweep.
inline constexpr const char* kWhereHelp =
    "only the sweep's runs this filter keeps, e.g. \"decoder_layers=24\" or \"norm=pre or "
    "norm=post\" (the desktop app's runs filter: keys, metrics, status; the output notes it)";

// The LR-sensitivity exports' `--value` (experiments::RunValue).
inline constexpr const char* kLrValueHelp =
    "each run's loss: last (default: its last logged point, the end of training, as Wortsman "
    "et al.) | final (its final metric: the best checkpoint's) | best (its best over training)";

// The LR-sensitivity exports' `--label A+B` (experiments::lr_sensitivity).
inline constexpr const char* kLrLabelHelp =
    "name each curve by these axes' values, joined like the table's --rows: "
    "model.norm+model.init gives \"pre / xavier\" (other axes that differ follow as key=value)";

// The LR-sensitivity exports' `--range LO:HI` (experiments::lr_sensitivity).
inline constexpr const char* kLrRangeHelp =
    "average every curve over the rates LO to HI, e.g. 2.5e-4:8e-3 (default: the range every "
    "curve covers, their intersection); a curve that does not reach both ends has none";

// Options every command shares.
struct GlobalOptions {
  std::string db;         // --db PATH|URL; empty: $FATHOM_DB, else ./fathom.db
  std::string artifacts;  // --artifacts DIR; empty: $FATHOM_ARTIFACTS, else beside a SQLite file
  bool json = false;      // --json: machine-readable output where a command supports it
  bool db_given = false;  // --db was on the command line (an empty one is refused)
};

// The store location after applying the default rules above. May hold a password: print
// db::redact_url() of it, or the opened Store's path().
std::string resolve_db_path(const GlobalOptions& options);
// Where run artifacts and caches go (db/run_paths.h); an InputError for a server store
// without --artifacts.
db::StorePaths resolve_store_paths(const GlobalOptions& options);
// The run `id_or_name` names in `store`; an InputError "no run with id or name '...'" when none.
db::RunRecord named_run(const db::Store& store, const std::string& id_or_name);

// `--set` takes every word after it, so `train --set k=v CONFIG.yaml` hands it the config file:
// when no config was given and the last --set item is no key=value but an existing file, that
// file is the config.
void take_config_from_overrides(std::string& config_path, std::vector<std::string>& overrides);

// Thrown by a command that ends with a particular exit status (after its own cleanup), e.g.
// `fathom worker`'s "stopped and requeued" (experiments/worker_exit.h).
struct CommandExit {
  int code;
};

// The global options (--db, --artifacts, --json) on `app`; `options` receives them.
void add_global_options(CLI::App& app, GlobalOptions& options);
// Every global option and sub-command of `fathom` on `app` (cli/app_models.cpp: the program
// fathom-torch, which links LibTorch).
void build_app(CLI::App& app, GlobalOptions& options);
// The global options and the commands that need no LibTorch: those that read and write the
// store (with `sweep status` and `sweep cancel`, cli/sweep_command_line.h), `compare` and
// `export verdicts` (test references from core/data/test_references.h) and `data` -- a program
// that needs no LibTorch (cli/app.cpp: the program `fathom`, which hands every other command to
// fathom-torch; cli/command_line.h).
void build_front_app(CLI::App& app, GlobalOptions& options);
// For argv whose first word that is no global option names no command: "unknown command
// 'trian'; did you mean 'train'? (commands: ...)" -- CLI11 alone says only "A subcommand is
// required". Empty when the command is known (or there is none).
std::string unknown_command_hint(const CLI::App& app, int argc, char** argv);

void add_train_command(CLI::App& app, GlobalOptions& options);
void add_worker_command(CLI::App& app, GlobalOptions& options);
void add_rank_command(CLI::App& app, GlobalOptions& options);
void add_runs_command(CLI::App& app, GlobalOptions& options);
void add_show_command(CLI::App& app, GlobalOptions& options);
void add_delete_command(CLI::App& app, GlobalOptions& options);
void add_prune_command(CLI::App& app, GlobalOptions& options);
void add_cancel_command(CLI::App& app, GlobalOptions& options);
void add_bleu_command(CLI::App& app, GlobalOptions& options);
void add_config_command(CLI::App& app, GlobalOptions& options);
void add_fold_command(CLI::App& app, GlobalOptions& options);
void add_params_command(CLI::App& app, GlobalOptions& options);
void add_sweep_command(CLI::App& app, GlobalOptions& options);
// `fathom export` with its sub-commands.
void add_export_command(CLI::App& app, GlobalOptions& options);
void add_report_command(CLI::App& app, GlobalOptions& options);
void add_analyze_command(CLI::App& app, GlobalOptions& options);
void add_db_command(CLI::App& app, GlobalOptions& options);
void add_compare_command(CLI::App& app, GlobalOptions& options);
void add_data_command(CLI::App& app, GlobalOptions& options);
void add_metrics_command(CLI::App& app, GlobalOptions& options);
void add_translate_command(CLI::App& app, GlobalOptions& options);
void add_evaluate_command(CLI::App& app, GlobalOptions& options);
void add_attention_command(CLI::App& app, GlobalOptions& options);
// `fathom data get` (cli/cmd_data_get.cpp), a sub-command of `fathom data`.
void add_data_get_command(CLI::App& data, GlobalOptions& options);
// `fathom data cache` (cli/cmd_data_cache.cpp), a sub-command of `fathom data`.
void add_data_cache_command(CLI::App& data, GlobalOptions& options);
// `fathom data plan` (cli/cmd_data_plan.cpp), a sub-command of `fathom data`.
void add_data_plan_command(CLI::App& data, GlobalOptions& options);
// Sub-commands of `fathom export` (cli/cmd_export.cpp).
void add_export_table_command(CLI::App& export_cmd, GlobalOptions& options);
void add_export_lr_command(CLI::App& export_cmd, GlobalOptions& options);
void add_export_importance_command(CLI::App& export_cmd, GlobalOptions& options);
void add_export_transfer_command(CLI::App& export_cmd, GlobalOptions& options);  // lr-transfer
void add_export_verdicts_command(CLI::App& export_cmd, GlobalOptions& options);
void add_export_reach_command(CLI::App& export_cmd, GlobalOptions& options);  // time to target
void add_export_noise_scale_command(CLI::App& export_cmd,
                                    GlobalOptions& options);  // train.noise_scale
// Without FATHOM_HAVE_PLOTS (no Qt 6) `export plot` is a stub that says how to get figures.
void add_export_plot_command(CLI::App& export_cmd, GlobalOptions& options);

// The report's figure renderer (cli/report_figures.cpp): training curves from `store` drawn as
// PNG into `out_dir` when this build has figures (FATHOM_HAVE_PLOTS), else an empty function
// (the report then says figures need Qt).
std::function<std::string(const experiments::CurvesRequest&)> report_curves_renderer(
    const db::Store& store, const std::string& out_dir);
// The learning-rate sensitivity figure of a report, the same way.
std::function<std::string(const experiments::LrSensitivity&, const std::string&)>
report_lr_sensitivity_renderer(const std::string& out_dir);

// The hyperparameter-importance figure of a report, the same way.
std::function<std::string(const experiments::HparamImportance&, const std::string&)>
report_importance_renderer(const std::string& out_dir);
// The figure of a metric against depth at a report's budget (plot/budgets_figure.h); null
// without Qt.
std::function<std::string(const experiments::BudgetsRequest&)> report_budgets_renderer(
    const db::Store& store, const std::string& out_dir);

// The time-to-target figure of a report (plot/reach_figure.h); null without Qt.
std::function<std::string(const experiments::ReachFigureRequest&)> report_reach_renderer(
    const std::string& out_dir);

// The training probes' heatmaps of a report (experiments::ReportOptions::render_probes).
std::function<std::vector<std::string>(const std::vector<std::pair<int64_t, db::ProbeSeries>>&,
                                       const std::string&, const std::string&)>
report_probes_renderer(const db::Store& store, const std::string& out_dir);

}  // namespace fathom::cli
