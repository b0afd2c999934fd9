#pragma once
// Each `fathom` sub-command lives in its own cli/cmd_*.cpp and registers itself here,
// called once from cli/main.cpp. A command's callback throws fathom::InputError for bad input;
// main() prints it and exits with status 2.
#include <CLI/CLI.hpp>
#include <string>

namespace fathom::cli {

// Options every command shares.
struct GlobalOptions {
  std::string db;      // --db PATH; empty: $FATHOM_DB, else ./fathom.db
  bool json = false;   // --json: machine-readable output where a command supports it
};

// The store path after applying the default rules above.
std::string resolve_db_path(const GlobalOptions& options);

void add_train_command(CLI::App& app, GlobalOptions& options);
void add_runs_command(CLI::App& app, GlobalOptions& options);
void add_show_command(CLI::App& app, GlobalOptions& options);
void add_bleu_command(CLI::App& app, GlobalOptions& options);
void add_config_command(CLI::App& app, GlobalOptions& options);
void add_fold_command(CLI::App& app, GlobalOptions& options);
void add_params_command(CLI::App& app, GlobalOptions& options);
void add_sweep_command(CLI::App& app, GlobalOptions& options);
void add_analyze_command(CLI::App& app, GlobalOptions& options);

}  // namespace fathom::cli
