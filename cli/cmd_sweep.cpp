// `fathom sweep SWEEP.yaml --dry-run`: expands a sweep file (docs/sweeps.md) into its runs,
// checks every run's config exactly as `fathom train` would (schema, cross-field rules and the
// model registry's method checks), and prints them. Running the sweep (the worker-process
// scheduler) is not built yet; without --dry-run the command says so and does nothing.
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "core/model/registry.h"
#include "core/util/error.h"
#include "experiments/sweep_spec.h"

namespace fathom::cli {
namespace {

struct SweepArgs {
  std::string file;
  bool dry_run = false;
};

void run_sweep(const SweepArgs& args) {
  const SweepSpec spec = load_sweep_file(args.file);
  const auto runs = expand_sweep(spec, [](const RunConfig& config) { check_model_methods(config); });
  if (!args.dry_run)
    throw InputError(args.file, 0, "--dry-run",
                     "the sweep scheduler is not available yet; use --dry-run to check and list "
                     "the runs, and `fathom train` to run them");
  std::cout << describe_sweep(runs);
}

}  // namespace

void add_sweep_command(CLI::App& app, GlobalOptions&) {
  auto args = std::make_shared<SweepArgs>();
  CLI::App* cmd = app.add_subcommand("sweep", "Check and list the runs of a sweep file");
  cmd->add_option("sweep", args->file, "sweep YAML (docs/sweeps.md)")->required();
  cmd->add_flag("--dry-run", args->dry_run, "check every run's config and print the runs");
  cmd->callback([args] { run_sweep(*args); });
}

}  // namespace fathom::cli
