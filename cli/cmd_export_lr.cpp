// `fathom export lr-sensitivity --sweep NAME [--metric valid_loss] [--value last|final|best]
// [--where EXPR] [--label A+B] [--range LO:HI]`: a sweep's learning-rate sensitivity table
// (experiments/lr_sensitivity.h): one row per setting of the other axes -- its sensitivity,
// its 95 % interval, best rate and loss, where seeds diverged -- over one range of rates common
// to the curves -- with the notes that say how it was computed. The
// figure is `fathom export plot lr-sensitivity`. And `fathom export lr-transfer --sweep NAME
// [--depth KEY]`: each method's best rate per depth and its slope across depths
// (experiments/lr_transfer.h).
#include <iostream>
#include <memory>

#include "base/util/error.h"
#include "cli/commands.h"
#include "cli/export_output.h"
#include "cli/option_checks.h"
#include "db/metric_names.h"
#include "experiments/lr_sensitivity.h"
#include "experiments/lr_transfer.h"
#include "experiments/value_at_budget.h"

namespace fathom::cli {
namespace {

struct LrArgs {
  std::string sweep, metric = db::metric::kValidLoss, value = "last", format = "md", out, where,
                     label, range, at;
};

void export_lr(const LrArgs& a, const GlobalOptions& global) {
  const auto store = db::Store::open(resolve_db_path(global), db::OpenMode::ReadOnly);
  const auto s = experiments::load_lr_sensitivity(
      store, a.sweep, a.metric,
      experiments::run_reading_named(a.value, a.at, "fathom export lr-sensitivity"), a.where,
      a.label, a.range);
  std::string text = experiments::format_text_table(experiments::lr_sensitivity_table(s), a.format);
  text = with_notes(std::move(text), s.notes, a.format);
  write_export(text, a.out);
}

struct TransferArgs {
  std::string sweep, depth, metric = db::metric::kValidLoss, value = "last", format = "md", out,
                            where, label, at;
};

// `fathom export lr-transfer`: each method's best rate per depth and the slope across depths
// (experiments/lr_transfer.h), two tables and the notes.
void export_transfer(const TransferArgs& a, const GlobalOptions& global) {
  const auto store = db::Store::open(resolve_db_path(global), db::OpenMode::ReadOnly);
  const auto t = experiments::load_lr_transfer(
      store, a.sweep, a.depth, a.metric,
      experiments::run_reading_named(a.value, a.at, "fathom export lr-transfer"), a.where, a.label);
  std::string text = experiments::format_text_table(experiments::lr_transfer_table(t), a.format);
  text += "\n";
  text += experiments::format_text_table(experiments::lr_transfer_slope_table(t), a.format);
  text = with_notes(std::move(text), t.notes, a.format);
  write_export(text, a.out);
}

}  // namespace

void add_export_transfer_command(CLI::App& export_cmd, GlobalOptions& global) {
  auto a = std::make_shared<TransferArgs>();
  CLI::App* cmd = export_cmd.add_subcommand(
      "lr-transfer",
      "A depth x learning-rate sweep: each method's best rate per depth (a parabola in log rate "
      "around the curve's minimum; its interval where the slope is within noise of zero) and its "
      "slope across depths (bootstrapped over seeds)");
  cmd->add_option("--sweep", a->sweep, "a sweep with a train.lr axis and a depth axis")->required();
  cmd->add_option("--depth", a->depth,
                  "the depth axis, e.g. model.decoder_layers (default: the one axis ending in "
                  "'layers')");
  cmd->add_option("--metric", a->metric, "a loss or perplexity (default valid_loss)")
      ->capture_default_str();
  add_budget_option(cmd, a->at,
                    cmd->add_option("--value", a->value, kLrValueHelp)
                        ->check(CLI::IsMember({"last", "final", "best"})));
  cmd->add_option("--format", a->format, "md | csv | tex")
      ->check(CLI::IsMember({"md", "csv", "tex"}));
  cmd->add_option("--where", a->where, kWhereHelp);
  cmd->add_option("--label", a->label, kLrLabelHelp);
  cmd->add_option("--out", a->out, "write to this file instead of stdout");
  cmd->callback([a, &global] { export_transfer(*a, global); });
}

void add_export_lr_command(CLI::App& export_cmd, GlobalOptions& global) {
  auto a = std::make_shared<LrArgs>();
  CLI::App* cmd = export_cmd.add_subcommand(
      "lr-sensitivity",
      "A sweep's learning-rate sensitivity per method (Wortsman et al. 2023), as a table");
  cmd->add_option("--sweep", a->sweep, "a sweep with a train.lr axis")->required();
  cmd->add_option("--metric", a->metric, "a loss or perplexity (default valid_loss)")
      ->capture_default_str();
  add_budget_option(cmd, a->at,
                    cmd->add_option("--value", a->value, kLrValueHelp)
                        ->check(CLI::IsMember({"last", "final", "best"})));
  cmd->add_option("--format", a->format, "md | csv | tex")
      ->check(CLI::IsMember({"md", "csv", "tex"}));
  cmd->add_option("--where", a->where, kWhereHelp);
  cmd->add_option("--label", a->label, kLrLabelHelp);
  cmd->add_option("--range", a->range, kLrRangeHelp);
  cmd->add_option("--out", a->out, "write to this file instead of stdout");
  cmd->callback([a, &global] { export_lr(*a, global); });
}

}  // namespace fathom::cli
