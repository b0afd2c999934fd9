// `fathom prune RUN... | --sweep NAME --keep N [--yes]`: frees the disk that ended runs' kept
// checkpoints (train.keep_checkpoint_every) take beyond the newest N of each -- what
// train.keep_checkpoints does while a run trains, for runs that kept them all. The best, last
// and averaged checkpoints, hypotheses and every metric stay. Per run, the rows go first (one
// transaction, refused for a running run) and then the files, so a failure leaves stray files,
// never a row naming a missing one. Without --yes it only lists what would go.
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/util/error.h"
#include "base/util/strings.h"
#include "cli/commands.h"
#include "core/train/run_files.h"
#include "db/run_paths.h"
#include "db/run_status.h"
#include "db/store.h"

namespace fathom::cli {
namespace {
namespace fs = std::filesystem;

struct PruneOptions {
  std::vector<std::string> runs;
  std::string sweep;
  int keep = -1;
  bool yes = false;
};

// What pruning one run does: its kept checkpoints split into those that go and those that stay.
struct RunPrune {
  db::RunRecord run;
  std::string skipped;  // why the run is left as it is ("" when it is pruned)
  std::vector<KeptCheckpoint> removed, kept;
  uintmax_t bytes = 0;  // of the removed files that exist
};

// The runs named, or the sweep's, each once, in the order given; a name no run has stops
// everything before anything is removed.
std::vector<db::RunRecord> selected_runs(const db::Store& store, const PruneOptions& opts) {
  std::vector<db::RunRecord> runs;
  const auto add = [&runs](const db::RunRecord& r) {
    for (const auto& seen : runs)
      if (seen.id == r.id) return;
    runs.push_back(r);
  };
  for (const auto& target : opts.runs) {
    auto run = store.find_run(target);
    if (!run) throw InputError(store.path(), 0, "", "no run with id or name '" + target + "'");
    add(*run);
  }
  if (!opts.sweep.empty()) {
    const auto in_sweep = store.list_runs(opts.sweep);
    if (in_sweep.empty())
      throw InputError(store.path(), 0, "--sweep", "no runs in sweep '" + opts.sweep + "'");
    for (const auto& r : in_sweep) add(r);
  }
  return runs;
}

// A run that may still train keeps what its final evaluation will average.
std::string why_not_pruned(const db::RunRecord& run, int keep) {
  if (db::status::is_active(run.status)) return "it is " + run.status + " and may still train";
  if (!db::status::is_resumable(run.status)) return "";
  const auto config = nlohmann::json::parse(run.config_json, nullptr, /*allow_exceptions=*/false);
  const int averages =
      config.is_object() ? config.value("/eval/average_checkpoints"_json_pointer, 0) : 0;
  if (averages > keep)
    return "it is " + run.status + " and may be resumed, and its final evaluation averages " +
           std::to_string(averages) + " kept checkpoints (eval.average_checkpoints)";
  return "";
}

RunPrune plan(const db::Store& store, const db::StorePaths& paths, const db::RunRecord& run,
              int keep) {
  RunPrune p{run, why_not_pruned(run, keep), {}, {}, 0};
  const auto all = kept_checkpoints(store.artifacts(run.id), paths.run_dir(run.id));
  const size_t go = all.size() > static_cast<size_t>(keep) ? all.size() - keep : 0;
  for (size_t i = 0; i < all.size(); ++i) (i < go ? p.removed : p.kept).push_back(all[i]);
  for (const auto& k : p.removed) {
    std::error_code ec;
    const uintmax_t size = fs::file_size(k.path, ec);
    if (!ec) p.bytes += size;
  }
  return p;
}

std::string updates(const std::vector<KeptCheckpoint>& kept) {
  if (kept.empty()) return "none";
  std::string text;
  for (const auto& k : kept) text += (text.empty() ? "" : " ") + std::to_string(k.update);
  return text;
}

// Rows, then files. A file another row still names (it cannot be today: kept checkpoints are
// files of their own) would stay.
std::string remove(db::Store& store, const RunPrune& p) {
  std::vector<std::string> kinds;
  for (const auto& k : p.removed) kinds.push_back("checkpoint_" + std::to_string(k.update));
  store.remove_artifacts(p.run.id, kinds);  // re-checks the status under the write lock
  std::string failed;
  for (const auto& k : p.removed) {
    std::error_code ec;
    fs::remove(k.path, ec);
    if (ec) failed += (failed.empty() ? "could not remove " : ", ") + k.path + ": " + ec.message();
  }
  return failed;
}

void prune_runs(const GlobalOptions& global, const PruneOptions& opts) {
  if (opts.runs.empty() && opts.sweep.empty())
    throw InputError("fathom prune", 0, "RUN", "name runs, or a sweep with --sweep NAME");
  auto store = db::Store::open(resolve_db_path(global));
  const db::StorePaths paths = resolve_store_paths(global);
  std::vector<RunPrune> plans;
  for (const auto& run : selected_runs(store, opts))
    plans.push_back(plan(store, paths, run, opts.keep));

  nlohmann::json out = {
      {"pruned", opts.yes}, {"keep", opts.keep}, {"runs", nlohmann::json::array()}};
  uintmax_t total = 0;
  for (const auto& p : plans) {
    nlohmann::json entry = {{"id", p.run.id}, {"name", p.run.name}, {"status", p.run.status}};
    const std::string head = "run " + std::to_string(p.run.id) + " (" + p.run.name + ")";
    if (!p.skipped.empty() || p.removed.empty()) {
      const std::string why =
          p.skipped.empty()
              ? "nothing beyond the newest " + std::to_string(opts.keep) + " kept checkpoints"
              : p.skipped;
      entry["skipped"] = why;
      out["runs"].push_back(entry);
      if (!global.json) std::cout << head << ": left as it is: " << why << "\n";
      continue;
    }
    std::vector<int64_t> removed, kept;
    for (const auto& k : p.removed) removed.push_back(k.update);
    for (const auto& k : p.kept) kept.push_back(k.update);
    entry["removed"] = removed;
    entry["kept"] = kept;
    entry["bytes"] = p.bytes;
    const std::string failed = opts.yes ? remove(store, p) : "";
    if (!failed.empty()) entry["warning"] = failed;
    total += p.bytes;
    out["runs"].push_back(entry);
    if (global.json) continue;
    std::cout << head << ": " << (opts.yes ? "removed " : "would remove ") << p.removed.size()
              << (p.removed.size() == 1 ? " kept checkpoint (update "
                                        : " kept checkpoints (updates ")
              << updates(p.removed) << "), " << format_bytes(p.bytes) << "; keeps updates "
              << updates(p.kept) << "\n";
    if (!failed.empty()) std::cout << "  " << failed << "\n";
  }
  out["bytes"] = total;
  if (global.json)
    std::cout << out.dump(2) << "\n";
  else
    std::cout << (opts.yes ? "freed " : "would free ") << format_bytes(total)
              << (opts.yes ? "\n" : "; nothing removed: add --yes\n");
}

}  // namespace

void add_prune_command(CLI::App& app, GlobalOptions& options) {
  auto opts = std::make_shared<PruneOptions>();
  CLI::App* cmd = app.add_subcommand(
      "prune",
      "Free disk: remove ended runs' kept checkpoints beyond the newest N (asks for --yes)");
  cmd->add_option("runs", opts->runs, "run ids or names");
  cmd->add_option("--sweep", opts->sweep, "every run of this sweep");
  cmd->add_option("--keep", opts->keep,
                  "kept checkpoints (train.keep_checkpoint_every) to leave per run, the newest")
      ->required()
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--yes,-y", opts->yes, "really remove (without it: list what would go)");
  cmd->callback([&options, opts] { prune_runs(options, *opts); });
}

}  // namespace fathom::cli
