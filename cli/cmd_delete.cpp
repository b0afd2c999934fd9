// `fathom delete RUN... --yes`: remove runs from the store -- every row about them (metrics,
// final metrics, tags, artifacts, analyses; Store::delete_run, one transaction per run, refused
// for a running run) and then their artifact directory (checkpoints, hypotheses). The same
// operation as the desktop app's Delete. Without --yes it only lists what would go.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/util/error.h"
#include "cli/commands.h"
#include "db/run_paths.h"
#include "db/run_removal.h"
#include "db/run_status.h"
#include "db/store.h"

namespace fathom::cli {
namespace {

void delete_runs(const GlobalOptions& global, const std::vector<std::string>& targets, bool yes) {
  const std::string path = resolve_db_path(global);
  auto store = db::Store::open(path);
  const db::StorePaths paths = resolve_store_paths(global);
  // Resolve every name first: a typo deletes nothing.
  std::vector<db::RunRecord> runs;
  for (const auto& target : targets) {
    const db::RunRecord run = named_run(store, target);
    if (run.status == db::status::kRunning)
      throw InputError(store.path(), 0, "",
                       "run " + std::to_string(run.id) + " (" + run.name +
                           ") is running; cancel it before deleting it");
    runs.push_back(run);
  }
  nlohmann::json out = {{"deleted", yes}, {"runs", nlohmann::json::array()}};
  for (const auto& run : runs) {
    nlohmann::json entry = {{"id", run.id},
                            {"name", run.name},
                            {"status", run.status},
                            {"artifacts", paths.run_dir(run.id)}};
    if (!yes) {
      if (!global.json)
        std::cout << "would delete run " << run.id << " (" << run.name << ", " << run.status
                  << ") and " << paths.run_dir(run.id) << "\n";
      out["runs"].push_back(entry);
      continue;
    }
    const std::string warning = db::delete_run_and_files(store, paths, run.id);
    if (!warning.empty()) entry["warning"] = warning;
    out["runs"].push_back(entry);
    if (!global.json)
      std::cout << "deleted run " << run.id << " (" << run.name << ")"
                << (warning.empty() ? "" : "; " + warning) << "\n";
  }
  if (global.json)
    std::cout << out.dump(2) << "\n";
  else if (!yes)
    std::cout << "nothing deleted: add --yes\n";
}

}  // namespace

void add_delete_command(CLI::App& app, GlobalOptions& options) {
  auto targets = std::make_shared<std::vector<std::string>>();
  auto yes = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "delete", "Delete runs: their rows in the store and their artifacts (asks for --yes)");
  cmd->add_option("runs", *targets, "run ids or names")->required();
  cmd->add_flag("--yes,-y", *yes, "really delete (without it: list what would be deleted)");
  cmd->callback([&options, targets, yes] { delete_runs(options, *targets, *yes); });
}

}  // namespace fathom::cli
