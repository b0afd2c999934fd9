// `fathom sweep extend SWEEP.yaml [--name NAME] [--metric valid_loss] [--value last|final|best]
// [--out FILE] [--dry-run]`: where a stored sweep's learning-rate grid leaves a curve's optimum
// at an end, the sweep file of one more rate beyond that end for each such curve and the
// sweep's seeds (experiments/lr_extension.h), written beside SWEEP.yaml as STEM-edge.yaml
// (-edge2, ... when taken; never over a file) for `fathom sweep FILE --resume`.
#include <filesystem>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "base/util/error.h"
#include "base/util/file_write.h"
#include "cli/sweep_command_line.h"
#include "db/metric_names.h"
#include "experiments/lr_extension.h"

namespace fathom::cli {
namespace {

namespace fs = std::filesystem;

struct ExtendArgs {
  std::string file, name, metric = db::metric::kValidLoss, value = "last", out;
  bool dry_run = false;
};

void sweep_extend(const ExtendArgs& a, const GlobalOptions& global) {
  const auto store = db::Store::open(resolve_db_path(global), db::OpenMode::ReadOnly);
  const std::string out = a.out.empty() ? experiments::free_extension_path(a.file) : a.out;
  const auto x = experiments::plan_lr_extension(
      store, a.file, a.name, a.metric, experiments::run_value_named(a.value, "fathom sweep extend"),
      fs::absolute(out).parent_path().string());
  const bool write = !a.dry_run && !x.text.empty();
  if (write && fs::exists(out))
    throw InputError(out, 0, "--out", "exists; give another --out (nothing is overwritten)");
  if (write) write_file_or_throw(out, x.text, "sweep file");

  if (global.json) {
    std::cout << nlohmann::json{{"sweep", x.sweep},         {"metric", a.metric},
                                {"value", a.value},         {"curves", x.curves},
                                {"closed", x.edges.closed}, {"extends", x.file.extends},
                                {"runs", x.file.runs},      {"file", write ? out : ""},
                                {"yaml", x.file.yaml},      {"notes", x.notes}}
                     .dump(2)
              << "\n";
    return;
  }
  std::printf(
      "sweep %s: %zu curves of train.lr by %s (%s): %zu with their optimum inside the "
      "grid, %zu at an end\n",
      x.sweep.c_str(), x.curves, a.metric.c_str(), a.value.c_str(), x.edges.closed.size(),
      x.edges.open.size());
  for (const auto& line : x.file.extends) std::printf("  %s\n", line.c_str());
  for (const auto& note : x.notes) std::printf("note: %s\n", note.c_str());
  if (a.dry_run && !x.text.empty()) std::printf("\n%s", x.text.c_str());
  if (!write) return;
  std::printf("wrote %s: %zu runs; train them with\n  fathom sweep %s --resume%s\n", out.c_str(),
              x.file.runs.size(), out.c_str(), x.set.empty() ? "" : (" --set " + x.set).c_str());
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
