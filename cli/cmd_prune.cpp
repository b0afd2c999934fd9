// `fathom prune RUN... | --sweep NAME [--keep N] [--model-only] [--previous] [--yes]`: frees the
// disk that ended runs' kept checkpoints take beyond the newest N of each
// (experiments/checkpoint_prune.h, shared with the desktop app), with --model-only the optimizer
// state of those that stay (cli/prune_model_only.h), and with --previous the fallback resume
// point of finished and diverged runs once their resume point is seen to load. Without --yes it
// only lists what it would do. With --yes over several runs each is counted as it is done ("[3/8]
// run 7 (...)"): on standard output, or on standard error beside --json (the app reads it there).
#include <algorithm>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/util/error.h"
#include "base/util/strings.h"
#include "cli/commands.h"
#include "cli/prune_model_only.h"
#include "core/train/resume_point.h"
#include "db/run_status.h"
#include "db/store.h"
#include "experiments/checkpoint_prune.h"

namespace fathom::cli {
namespace {

struct PruneOptions {
  std::vector<std::string> runs;
  std::string sweep;
  int keep = -1;  // -1: every kept checkpoint stays (--model-only alone)
  bool model_only = false;
  bool previous = false;
  bool yes = false;
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
  for (const auto& target : opts.runs) add(named_run(store, target));
  if (!opts.sweep.empty()) {
    const auto in_sweep = store.list_runs(opts.sweep);
    if (in_sweep.empty())
      throw InputError(store.path(), 0, "--sweep", "no runs in sweep '" + opts.sweep + "'");
    for (const auto& r : in_sweep) add(r);
  }
  return runs;
}

std::string updates(const std::vector<db::KeptCheckpoint>& kept) {
  if (kept.empty()) return "none";
  std::string text;
  for (const auto& k : kept) text += (text.empty() ? "" : " ") + std::to_string(k.update);
  return text;
}

// --previous with --yes: the fallback goes only behind a resume point that loads as a resume
// would load it; otherwise it stays, and why is said.
experiments::PrunePlan checked(experiments::PrunePlan p, nlohmann::json& entry,
                               std::ostream& said) {
  if (!p.removes_previous()) return p;
  try {
    check_resume_point(p.last);
  } catch (const std::exception& e) {
    const std::string why = std::string("checkpoint_last does not load (") + e.what() +
                            "): its fallback, checkpoint_previous, stays";
    entry["previous_kept"] = why;
    said << "  " << why << "\n";
    p.previous.clear();
    p.previous_bytes = 0;
  }
  return p;
}

// One run's removal of kept checkpoints beyond the newest N and of its fallback resume point:
// done with --yes, else described. Returns the bytes removed (or to remove).
std::uintmax_t remove_beyond(db::Store& store, const PruneOptions& opts, experiments::PrunePlan p,
                             nlohmann::json& entry, std::ostream& said) {
  if (opts.yes) p = checked(std::move(p), entry, said);
  std::vector<int64_t> removed, kept;
  for (const auto& k : p.removed) removed.push_back(k.update);
  for (const auto& k : p.kept) kept.push_back(k.update);
  entry["removed"] = removed;
  entry["kept"] = kept;
  entry["bytes"] = p.bytes + p.previous_bytes;
  if (p.removes_previous()) entry["previous"] = {{"path", p.previous}, {"bytes", p.previous_bytes}};
  const std::string failed = opts.yes ? experiments::apply_prune(store, p) : "";
  if (!failed.empty()) entry["warning"] = failed;
  const char* verb = opts.yes ? "removed " : "would remove ";
  if (!p.removed.empty())
    said << "  " << verb << p.removed.size()
         << (p.removed.size() == 1 ? " kept checkpoint (update " : " kept checkpoints (updates ")
         << updates(p.removed) << "), " << format_bytes(p.bytes) << "; keeps updates "
         << updates(p.kept) << "\n";
  if (p.removes_previous())
    said << "  " << verb << "the fallback resume point (checkpoint_previous), "
         << format_bytes(p.previous_bytes)
         << (opts.yes ? "" : ", once checkpoint_last is seen to load") << "\n";
  if (!failed.empty()) said << "  " << failed << "\n";
  return p.bytes + p.previous_bytes;
}

// The kept checkpoints that stay, without their optimizer state (--model-only).
ModelOnlyResult slim_kept(db::Store& store, const PruneOptions& opts,
                          const experiments::PrunePlan& p, nlohmann::json& entry,
                          std::ostream& said) {
  const ModelOnlyResult r = keep_models_only(store, p, opts.yes);
  entry["model_only"] = {{"files", r.files}, {"bytes_before", r.before}};
  if (opts.yes) entry["model_only"]["bytes_after"] = r.after;
  if (!r.warning.empty()) entry["model_only"]["warning"] = r.warning;
  if (r.files > 0)
    said << "  " << (opts.yes ? "rewrote " : "would rewrite ") << r.files
         << " kept checkpoint(s) without the optimizer state: " << format_bytes(r.before)
         << (opts.yes ? " -> " + format_bytes(r.after) : " now") << "\n";
  if (!r.warning.empty()) said << "  stopped at " << r.warning << "\n";
  return r;
}

// Why a run that may be pruned has nothing to prune.
std::string nothing_to_do(const PruneOptions& opts, const db::RunRecord& run) {
  std::string why = opts.keep >= 0 ? "nothing beyond the newest " + std::to_string(opts.keep) +
                                         " kept checkpoints"
                    : opts.model_only ? "it kept no checkpoints"
                                      : "";
  if (opts.previous)
    why += (why.empty() ? "" : ", and ") +
           std::string(db::status::is_resumable(run.status)
                           ? "it may be resumed: its fallback resume point stays"
                           : "no fallback resume point behind a last one");
  return why;
}

// "freed 1.5 MiB", or what a listing would do.
std::string total_line(bool yes, std::uintmax_t removed, std::uintmax_t slim_before,
                       std::uintmax_t slim_after) {
  if (yes)
    return "freed " + format_bytes(removed + slim_before - std::min(slim_before, slim_after));
  std::string line = "would free " + format_bytes(removed);
  if (slim_before > 0)
    line += ", and about two thirds of " + format_bytes(slim_before) + " by --model-only";
  return line + "; nothing changed: add --yes";
}

void prune_runs(const GlobalOptions& global, const PruneOptions& opts) {
  if (opts.runs.empty() && opts.sweep.empty())
    throw InputError("fathom prune", 0, "RUN", "name runs, or a sweep with --sweep NAME");
  if (opts.keep < 0 && !opts.model_only && !opts.previous)
    throw InputError("fathom prune", 0, "--keep",
                     "say how many kept checkpoints to leave per run (--keep N), or --model-only, "
                     "or --previous");
  auto store = db::Store::open(resolve_db_path(global));
  const db::StorePaths paths = resolve_store_paths(global);
  std::vector<experiments::PrunePlan> plans;
  for (const auto& run : selected_runs(store, opts))
    plans.push_back(
        experiments::plan_prune(store, paths, run, {opts.keep, opts.model_only, opts.previous}));

  nlohmann::json out = {{"pruned", opts.yes}, {"runs", nlohmann::json::array()}};
  if (opts.keep >= 0) out["keep"] = opts.keep;
  std::uintmax_t removed = 0, slim_before = 0, slim_after = 0;
  for (size_t i = 0; i < plans.size(); ++i) {
    const experiments::PrunePlan& p = plans[i];
    nlohmann::json entry = {{"id", p.run.id}, {"name", p.run.name}, {"status", p.run.status}};
    // Applying may read and write gigabytes a run: where each run is in the whole, said as done.
    const std::string count = opts.yes && plans.size() > 1 ? "[" + std::to_string(i + 1) + "/" +
                                                                 std::to_string(plans.size()) + "] "
                                                           : "";
    const std::string head = count + "run " + std::to_string(p.run.id) + " (" + p.run.name + ")";
    const bool slim = opts.model_only && p.skipped.empty() && !p.kept.empty();
    if (!p.skipped.empty() || (p.removed.empty() && !p.removes_previous() && !slim)) {
      const std::string why = !p.skipped.empty() ? p.skipped : nothing_to_do(opts, p.run);
      entry["skipped"] = why;
      out["runs"].push_back(entry);
      if (!global.json)
        std::cout << head << ": left as it is: " << why << "\n";
      else if (!count.empty())
        std::cerr << head << ": left as it is\n" << std::flush;
      continue;
    }
    std::ostringstream said;
    if (!p.removed.empty() || p.removes_previous())
      removed += remove_beyond(store, opts, p, entry, said);
    if (slim) {
      const ModelOnlyResult r = slim_kept(store, opts, p, entry, said);
      slim_before += opts.yes ? r.released : r.before;
      slim_after += r.after;
    }
    if (!global.json)
      std::cout << head
                << (said.str().empty()
                        ? ": nothing to do: its kept checkpoints hold the model alone\n"
                        : "\n" + said.str())
                << std::flush;
    else if (!count.empty())  // the report comes at the end: the count goes on as it is done
      std::cerr << head << "\n" << std::flush;
    out["runs"].push_back(entry);
  }
  out["bytes"] = removed;
  if (global.json)
    std::cout << out.dump(2) << "\n";
  else
    std::cout << total_line(opts.yes, removed, slim_before, slim_after) << "\n";
}

}  // namespace

void add_prune_command(CLI::App& app, GlobalOptions& options) {
  auto opts = std::make_shared<PruneOptions>();
  CLI::App* cmd = app.add_subcommand(
      "prune",
      "Free disk: remove ended runs' kept checkpoints beyond the newest N, their optimizer "
      "state, or finished runs' fallback resume point (asks for --yes)");
  cmd->add_option("runs", opts->runs, "run ids or names");
  cmd->add_option("--sweep", opts->sweep, "every run of this sweep");
  cmd->add_option("--keep", opts->keep,
                  "kept checkpoints (train.keep_checkpoint_every) to leave per run, the newest")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--model-only", opts->model_only,
                "rewrite the kept checkpoints that stay without the optimizer state (a third of "
                "the bytes under Adam; they can no longer be forked from)");
  cmd->add_flag("--previous", opts->previous,
                "also remove finished and diverged runs' fallback resume point "
                "(checkpoint_previous), after checking their checkpoint_last loads");
  cmd->add_flag("--yes,-y", opts->yes, "really remove (without it: list what would go)");
  cmd->callback([&options, opts] { prune_runs(options, *opts); });
}

}  // namespace fathom::cli
