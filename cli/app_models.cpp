// The whole `fathom` command line as CLI11 sees it: global options and every sub-command, in one
// place -- fathom-torch's main() parses with it, and fuzz/fuzz_cli.cpp parses arbitrary argument
// lists with it (commands' callbacks removed). The order is the help's.
#include "cli/commands.h"

namespace fathom::cli {

void build_app(CLI::App& app, GlobalOptions& options) {
  add_global_options(app, options);
  add_train_command(app, options);
  add_worker_command(app, options);
  add_rank_command(app, options);
  add_runs_command(app, options);
  add_show_command(app, options);
  add_delete_command(app, options);
  add_prune_command(app, options);
  add_cancel_command(app, options);
  add_bleu_command(app, options);
  add_translate_command(app, options);
  add_evaluate_command(app, options);
  add_attention_command(app, options);
  add_config_command(app, options);
  add_fold_command(app, options);
  add_params_command(app, options);
  add_sweep_command(app, options);
  add_export_command(app, options);
  add_report_command(app, options);
  add_analyze_command(app, options);
  add_db_command(app, options);
  add_compare_command(app, options);
  add_data_command(app, options);
  add_metrics_command(app, options);
}

}  // namespace fathom::cli
