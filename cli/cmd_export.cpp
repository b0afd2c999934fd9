// `fathom export ...`: tables (always) and figures (when built with Qt and QCustomPlot).
#include "cli/commands.h"

namespace fathom::cli {

void add_export_command(CLI::App& app, GlobalOptions& global) {
  CLI::App* cmd = app.add_subcommand("export", "Export comparison tables and figures");
  cmd->require_subcommand(1);
  add_export_table_command(*cmd, global);
#ifdef FATHOM_HAVE_PLOTS
  add_export_plot_command(*cmd, global);
#endif
}

}  // namespace fathom::cli
