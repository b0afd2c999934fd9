// `fathom sweep extend SWEEP.yaml [--name NAME] [--metric valid_loss] [--value last|final|best]
// [--axis KEY [--at BUDGET] [--lines K1+K2 [--agg best [--select-by M]]] [--where W]]
// [--out FILE] [--dry-run]`: where a stored sweep's learning-rate grid leaves a curve's
// optimum at an end, the sweep file of one more rate beyond that end for each such curve and
// the sweep's seeds (experiments/lr_extension.h); with --axis, the same for each line whose
// best value of that numeric axis (a depth) is at an end (experiments/axis_extension.h). Written
// beside SWEEP.yaml as STEM-edge.yaml (-edge2, ... when taken; never over a file) for `fathom sweep
// FILE --resume`.
#include <filesystem>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "base/util/error.h"
#include "base/util/file_write.h"
#include "cli/sweep_command_line.h"
#include "db/metric_names.h"
#include "experiments/axis_extension.h"
#include "experiments/lr_extension.h"
#include "experiments/value_at_budget.h"

namespace fathom::cli {
namespace {

namespace fs = std::filesystem;

const std::string kCommand = "fathom sweep extend";

struct ExtendArgs {
  std::string file, name, metric = db::metric::kValidLoss, value = "last", out;
  // --axis and what only it reads.
  std::string axis, at, lines, agg = "mean", select_by = db::metric::kValidLoss, where;
  bool dry_run = false;
};

// The file written (or not: --dry-run, nothing to extend); `out` its path.
bool write_extension(const ExtendArgs& a, const std::string& out, const std::string& text) {
  const bool write = !a.dry_run && !text.empty();
  if (write && fs::exists(out))
    throw InputError(out, 0, "--out", "exists; give another --out (nothing is overwritten)");
  if (write) write_file_or_throw(out, text, "sweep file");
  return write;
}

// What the plan says after its summary line: each line extended, the notes, the file on a dry
// run.
void say_plan(const ExtendArgs& a, const experiments::SweepExtension& file,
              const std::vector<std::string>& notes, const std::string& text) {
  for (const auto& line : file.extends) std::printf("  %s\n", line.c_str());
  for (const auto& note : notes) std::printf("note: %s\n", note.c_str());
  if (a.dry_run && !text.empty()) std::printf("\n%s", text.c_str());
}

void say_written(const std::string& out, size_t runs, const std::string& set) {
  std::printf("wrote %s: %zu runs; train them with\n  fathom sweep %s --resume%s\n", out.c_str(),
              runs, out.c_str(), set.empty() ? "" : (" --set " + set).c_str());
}

// --axis: each line's best value of a numeric axis (a depth), at the runs' ends or --at.
void axis_extend(const ExtendArgs& a, const GlobalOptions& global) {
  const auto store = db::Store::open(resolve_db_path(global), db::OpenMode::ReadOnly);
  const std::string out = a.out.empty() ? experiments::free_extension_path(a.file) : a.out;
  experiments::AxisExtensionRequest r;
  r.sweep_file = a.file;
  r.name = a.name;
  r.axis = a.axis;
  r.metric = a.metric;
  r.reading = experiments::run_reading_named(a.value, a.at, kCommand);
  r.lines = a.lines;
  r.where = a.where;
  r.agg = a.agg == "best" ? experiments::CellAgg::Best : experiments::CellAgg::Mean;
  r.select_by = a.select_by;
  r.out_dir = fs::absolute(out).parent_path().string();
  const auto x = experiments::plan_axis_extension(store, r);
  const bool write = write_extension(a, out, x.text);
  if (global.json) {
    std::cout << nlohmann::json{{"sweep", x.sweep},    {"axis", x.axis},
                                {"metric", a.metric},  {"at", a.at},
                                {"lines", x.lines},    {"closed", x.closed},
                                {"open", x.open},      {"extends", x.file.extends},
                                {"runs", x.file.runs}, {"file", write ? out : ""},
                                {"yaml", x.file.yaml}, {"notes", x.notes}}
                     .dump(2)
              << "\n";
    return;
  }
  std::printf(
      "sweep %s: %zu line%s along %s by %s%s: %zu with their best inside the grid, %zu "
      "at an end\n",
      x.sweep.c_str(), x.lines, x.lines == 1 ? "" : "s", x.axis.c_str(), a.metric.c_str(),
      a.at.empty() ? "" : (" at " + a.at).c_str(), x.closed.size(), x.open.size());
  say_plan(a, x.file, x.notes, x.text);
  if (write) say_written(out, x.file.runs.size(), x.set);
}

void sweep_extend(const ExtendArgs& a, const GlobalOptions& global) {
  if (!a.axis.empty()) return axis_extend(a, global);
  for (const auto& [flag, given] : {std::pair{"--at", !a.at.empty()},
                                    {"--lines", !a.lines.empty()},
                                    {"--agg", a.agg != "mean"},
                                    {"--where", !a.where.empty()}})
    if (given)
      throw InputError(kCommand, 0, flag,
                       "is read with --axis; the learning rate's curves are judged at the runs' "
                       "ends (--value), one per setting of the other axes");
  const auto store = db::Store::open(resolve_db_path(global), db::OpenMode::ReadOnly);
  const std::string out = a.out.empty() ? experiments::free_extension_path(a.file) : a.out;
  const auto x = experiments::plan_lr_extension(
      store, a.file, a.name, a.metric, experiments::run_value_named(a.value, "fathom sweep extend"),
      fs::absolute(out).parent_path().string());
  const bool write = write_extension(a, out, x.text);

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
  say_plan(a, x.file, x.notes, x.text);
  if (write) say_written(out, x.file.runs.size(), x.set);
}

}  // namespace

void add_sweep_extend_command(CLI::App& sweep_cmd, GlobalOptions& global) {
  auto a = std::make_shared<ExtendArgs>();
  CLI::App* cmd = sweep_cmd.add_subcommand(
      "extend",
      "Where a stored sweep's best learning rate (or, with --axis, best depth) is at its grid's "
      "end: write the sweep file of the next step beyond it for those curves (run it with "
      "--resume)");
  cmd->add_option("file", a->file, "the sweep file the sweep was started from")->required();
  cmd->add_option("--name", a->name, "the sweep's name in the store, if started with --name");
  cmd->add_option("--metric", a->metric, "a validation loss or perplexity (default valid_loss)")
      ->capture_default_str();
  cmd->add_option("--value", a->value, kLrValueHelp)
      ->check(CLI::IsMember({"last", "final", "best"}));
  cmd->add_option("--out", a->out,
                  "the new sweep file (default: FILE's stem + -edge.yaml beside it)");
  cmd->add_flag("--dry-run", a->dry_run, "print the file instead of writing it");
  cmd->add_option("--axis", a->axis,
                  "extend this numeric grid or zip key (a depth: model.encoder_layers) instead "
                  "of train.lr, for each line (setting of the other axes) whose best value of it "
                  "is at an end; a zip partner gets its value at the new step (an isoFLOP "
                  "sweep's max_updates: its compute over the update's cost there)");
  cmd->add_option("--lines", a->lines,
                  "with --axis: the axes whose settings are the lines, e.g. model.norm+model.init "
                  "(default every other axis); the rest are variants, pooled or, with --agg best, "
                  "each depth at its best one, and an extended line gets the new step at each");
  cmd->add_option("--where", a->where, std::string("with --axis: ") + kWhereHelp);
  cmd->add_option("--agg", a->agg, "with --axis and --lines: mean (default) | best")
      ->check(CLI::IsMember({"mean", "best"}));
  cmd->add_option("--select-by", a->select_by,
                  "with --agg best: the validation metric a variant is chosen on (default "
                  "valid_loss)");
  cmd->add_option("--at", a->at,
                  "with --axis: each run's value at this budget, e.g. compute=least (an isoFLOP "
                  "comparison; export table --at)");
  cmd->callback([a, &global] { sweep_extend(*a, global); });
}

}  // namespace fathom::cli
