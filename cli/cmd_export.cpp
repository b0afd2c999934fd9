// `fathom export ...`: tables (always) and figures (when built with Qt and QCustomPlot).
#include "cli/commands.h"

namespace fathom::cli {

void add_export_command(CLI::App& app, GlobalOptions& global) {
  CLI::App* cmd = app.add_subcommand("export", "Export comparison tables and figures");
  cmd->require_subcommand(1);
  add_export_table_command(*cmd, global);
  add_export_lr_command(*cmd, global);
  add_export_importance_command(*cmd, global);
  add_export_transfer_command(*cmd, global);
  add_export_verdicts_command(*cmd, global);
  add_export_reach_command(*cmd, global);
  add_export_noise_scale_command(*cmd, global);
  add_export_plot_command(*cmd, global);  // a stub in builds without Qt
}

}  // namespace fathom::cli
