// `fathom cancel RUN...`: cancel single runs, wherever their workers run -- the same operation
// as `fathom sweep cancel` (for a whole sweep) and the desktop app's Cancel
// (experiments/run_control.h). A queued or running run becomes cancelled and its worker is
// stopped (SIGTERM on this host, scancel on Slurm); a run whose worker is already gone (a
// stale heartbeat after kill -9) is simply marked. Ended runs are left as they are.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/util/error.h"
#include "cli/commands.h"
#include "db/run_status.h"
#include "db/store.h"
#include "experiments/run_control.h"

namespace fathom::cli {
namespace {

void cancel(const GlobalOptions& global, const std::vector<std::string>& targets) {
  auto store = db::Store::open(resolve_db_path(global));
  // Resolve every name first: a typo cancels nothing.
  std::vector<db::RunRecord> runs;
  for (const auto& target : targets) runs.push_back(named_run(store, target));
  const experiments::CancelReport report =
      experiments::cancel_runs(store, runs, "cancelled by `fathom cancel`");
  nlohmann::json out = {{"runs", nlohmann::json::array()}, {"warnings", report.problems}};
  for (const auto& run : runs) {
    const auto now = store.find_run(std::to_string(run.id));
    const bool was_active = db::status::is_active(run.status);
    const bool cancelled = was_active && now && now->status == db::status::kCancelled;
    const std::string status = now ? now->status : run.status;
    out["runs"].push_back(
        {{"id", run.id}, {"name", run.name}, {"status", status}, {"cancelled", cancelled}});
    if (!global.json)
      std::cout << "run " << run.id << " (" << run.name
                << "): " << (cancelled ? "cancelled" : status + ", left as it is") << "\n";
  }
  if (global.json) std::cout << out.dump(2) << "\n";
  for (const auto& problem : report.problems) std::cerr << "warning: " << problem << "\n";
}

}  // namespace

void add_cancel_command(CLI::App& app, GlobalOptions& options) {
  auto targets = std::make_shared<std::vector<std::string>>();
  CLI::App* cmd = app.add_subcommand(
      "cancel", "Cancel queued or running runs and stop their workers (local or Slurm)");
  cmd->add_option("runs", *targets, "run ids or names")->required();
  cmd->callback([&options, targets] { cancel(options, *targets); });
}

}  // namespace fathom::cli
