// `fathom sweep extend SWEEP.yaml [--name NAME] [--metric valid_loss] [--value last|final|best]
// [--out FILE] [--dry-run]`: where a stored sweep's learning-rate grid leaves a curve's optimum
// at an end (experiments/lr_grid_edges.h), the sweep file of one more rate beyond that end for
// each such curve and the sweep's seeds (experiments/sweep_extension.h), written beside
// SWEEP.yaml as NAME-edge.yaml (-edge2, ... when taken; never over a file) for
// `fathom sweep FILE --resume`. Judged on a validation loss, never on a test metric: the rate
// a table reports is chosen on validation.
#include <filesystem>
#include <iostream>
#include <memory>
#include <set>

#include <nlohmann/json.hpp>

#include "base/util/error.h"
#include "base/util/file_write.h"
#include "cli/sweep_command_line.h"
#include "db/metric_names.h"
#include "db/run_status.h"
#include "experiments/comparison_table.h"
#include "experiments/lr_grid_edges.h"
#include "experiments/sweep_extension.h"

namespace fathom::cli {
namespace {

namespace fs = std::filesystem;

struct ExtendArgs {
  std::string file, name, metric = db::metric::kValidLoss, value = "last", out;
  bool dry_run = false;
};

// Beside the sweep file, the first of STEM-edge.yaml, STEM-edge2.yaml, ... that is free.
std::string free_path_beside(const std::string& file) {
  const fs::path p(file);
  for (int i = 1;; ++i) {
    const fs::path candidate = p.parent_path() / (p.stem().string() + "-edge" +
                                                  (i == 1 ? "" : std::to_string(i)) + ".yaml");
    if (!fs::exists(candidate)) return candidate.string();
  }
}

// A sweep still training would be judged on curves it has not finished.
void refuse_unended(const std::vector<db::RunRecord>& runs, const std::string& name,
                    const std::string& shown) {
  if (runs.empty()) throw InputError(shown, 0, "--name", "no sweep named '" + name + "'");
  int waiting = 0;
  for (const auto& r : runs) waiting += !db::is_terminal_status(r.status);
  if (waiting > 0)
    throw InputError(shown, 0, "sweep",
                     std::to_string(waiting) + " of sweep " + name +
                         "'s runs are queued or running; extend its grid once they have ended");
}

std::string header(const ExtendArgs& a, const experiments::SweepExtension& x) {
  std::string text = "# Written by `fathom sweep extend " + a.file + "`: one rate beyond the " +
                     "grid's end for each\n# learning-rate curve whose lowest " + a.metric + " (" +
                     a.value + ") was at that end, so that the\n# sweep's tables choose " +
                     "each one's rate inside its grid. Run it with --resume (it joins\n# the " +
                     "sweep's queue). Curves:\n";
  for (const auto& line : x.extends) text += "#   " + line + "\n";
  return text;
}

void sweep_extend(const ExtendArgs& a, const GlobalOptions& global) {
  if (a.metric.rfind("test_", 0) == 0)
    throw InputError("fathom sweep extend", 0, "--metric",
                     a.metric +
                         " is a test metric: a rate is chosen on validation (valid_loss), "
                         "and the test metric is what is then reported");
  const auto spec = experiments::load_sweep_file(a.file);
  const std::string name = a.name.empty() ? spec.name : a.name;
  const auto store = db::Store::open(resolve_db_path(global), db::OpenMode::ReadOnly);
  const auto runs = store.list_runs(name);
  refuse_unended(runs, name, store.path());
  const auto sensitivity = experiments::load_lr_sensitivity(
      store, name, a.metric, experiments::run_value_named(a.value, "fathom sweep extend"));
  const auto edges = experiments::grid_edges(sensitivity);
  const std::string out = a.out.empty() ? free_path_beside(a.file) : a.out;
  if (!a.dry_run && !edges.open.empty() && fs::exists(out))
    throw InputError(out, 0, "--out", "exists; give another --out (nothing is overwritten)");
  const auto ext = experiments::extend_sweep(a.file, spec, edges.open,
                                             fs::absolute(out).parent_path().string(), name);
  std::set<std::string> stored;
  for (const auto& r : runs) stored.insert(r.name);
  int again = 0;
  for (const auto& run : ext.runs) again += stored.count(run) > 0;
  std::vector<std::string> notes = edges.notes;
  notes.insert(notes.end(), ext.notes.begin(), ext.notes.end());
  if (again > 0)
    notes.push_back(std::to_string(again) + " of its runs are in the store already (that rate " +
                    "was tried and left no value: failed? `--retry failed` runs them again)");
  const auto first_tags = store.tags(runs.front().id);  // --set values, which --resume repeats
  const auto set_tag = first_tags.find("sweep.set");
  const std::string set = set_tag == first_tags.end() ? "" : set_tag->second;
  const bool write = !a.dry_run && !ext.runs.empty();
  if (write) write_file_or_throw(out, header(a, ext) + ext.yaml, "sweep file");

  if (global.json) {
    std::cout << nlohmann::json{{"sweep", name},
                                {"metric", a.metric},
                                {"value", a.value},
                                {"closed", edges.closed},
                                {"extends", ext.extends},
                                {"runs", ext.runs},
                                {"file", write ? out : ""},
                                {"yaml", ext.yaml},
                                {"notes", notes}}
                     .dump(2)
              << "\n";
    return;
  }
  std::printf(
      "sweep %s: %zu curves of %s by %s (%s): %zu with their optimum inside the grid, "
      "%zu at an end\n",
      name.c_str(), sensitivity.curves.size(), experiments::kLrKey, a.metric.c_str(),
      a.value.c_str(), edges.closed.size(), edges.open.size());
  for (const auto& line : ext.extends) std::printf("  %s\n", line.c_str());
  for (const auto& note : notes) std::printf("note: %s\n", note.c_str());
  if (a.dry_run && !ext.yaml.empty()) std::printf("\n%s", (header(a, ext) + ext.yaml).c_str());
  if (!write) return;
  std::printf("wrote %s: %zu runs; train them with\n  fathom sweep %s --resume%s\n", out.c_str(),
              ext.runs.size(), out.c_str(), set.empty() ? "" : (" --set " + set).c_str());
}

}  // namespace

void add_sweep_extend_command(CLI::App& sweep_cmd, GlobalOptions& global) {
  auto a = std::make_shared<ExtendArgs>();
  CLI::App* cmd = sweep_cmd.add_subcommand(
      "extend",
      "Where a stored sweep's best learning rate is at its grid's end: write the sweep file of "
      "the next rate beyond it for those curves (run it with --resume)");
  cmd->add_option("file", a->file, "the sweep file the sweep was started from")->required();
  cmd->add_option("--name", a->name, "the sweep's name in the store, if started with --name");
  cmd->add_option("--metric", a->metric, "a validation loss or perplexity (default valid_loss)")
      ->capture_default_str();
  cmd->add_option("--value", a->value, kLrValueHelp)
      ->check(CLI::IsMember({"last", "final", "best"}));
  cmd->add_option("--out", a->out,
                  "the new sweep file (default: FILE's stem + -edge.yaml beside it)");
  cmd->add_flag("--dry-run", a->dry_run, "print the file instead of writing it");
  cmd->callback([a, &global] { sweep_extend(*a, global); });
}

}  // namespace fathom::cli
