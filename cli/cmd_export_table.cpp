// `fathom export table --sweep NAME --rows AXIS [--cols AXIS] --metric M --format csv|md|tex`:
// a sweep's results as the papers' tables (experiments/comparison_table.h, docs/sweeps.md).
#include <iostream>
#include <memory>

#include "base/util/error.h"
#include "cli/commands.h"
#include "cli/export_output.h"
#include "cli/option_checks.h"
#include "experiments/comparison_table.h"
#include "experiments/value_at_budget.h"

namespace fathom::cli {
namespace {

struct TableArgs {
  std::string sweep, rows, cols, metric, format, agg = "mean", seeds = "mean", bold = "none",
                                                 value = "final", direction = "auto", out;
  std::string select_by = "valid_loss", versus, adjust = "holm", where, at;
  bool select_on_test = false;
  int digits = 2;
};

std::string format_of(const TableArgs& a) {
  if (!a.format.empty()) return a.format;
  for (const auto& [ext, format] : {std::pair{".csv", "csv"}, {".md", "md"}, {".tex", "tex"}})
    if (a.out.size() > 4 &&
        a.out.compare(a.out.size() - std::string(ext).size(), std::string::npos, ext) == 0)
      return format;
  return "md";
}

void export_table(const TableArgs& a, const GlobalOptions& global) {
  experiments::TableOptions options;
  options.rows = a.rows;
  options.cols = a.cols;
  options.metric = a.metric;
  options.agg = a.agg == "best" ? experiments::CellAgg::Best : experiments::CellAgg::Mean;
  options.spread = a.seeds == "mean"                           ? experiments::Spread::None
                   : a.seeds.find("ci95") != std::string::npos ? experiments::Spread::Ci95
                                                               : experiments::Spread::Std;
  options.select_by = a.select_by;
  options.select_on_test = a.select_on_test;
  options.versus = a.versus;
  options.p_adjust = a.adjust == "none" ? experiments::PAdjust::None : experiments::PAdjust::Holm;
  options.digits = a.digits;
  options.bold = a.bold == "col"   ? experiments::BoldBest::Column
                 : a.bold == "row" ? experiments::BoldBest::Row
                                   : experiments::BoldBest::None;
  options.direction = a.direction == "max"   ? experiments::MetricDirection::HigherIsBetter
                      : a.direction == "min" ? experiments::MetricDirection::LowerIsBetter
                                             : experiments::MetricDirection::Auto;
  const auto store = db::Store::open(resolve_db_path(global), db::OpenMode::ReadOnly);
  options.value = experiments::run_value_named(a.value, "fathom export table");
  options.at = experiments::budget_option(a.at, "fathom export table");
  const experiments::ComparisonTable table =
      experiments::sweep_comparison_table(store, a.sweep, options, a.where);
  const std::string format = format_of(a);
  const std::string text = format == "csv"   ? experiments::table_to_csv(table)
                           : format == "tex" ? experiments::table_to_latex(table)
                                             : experiments::table_to_markdown(table);
  write_export(text, a.out,
               "(" + std::to_string(table.row_labels.size()) + " x " +
                   std::to_string(table.col_labels.size()) + " cells)");
}

}  // namespace

void add_export_table_command(CLI::App& export_cmd, GlobalOptions& global) {
  auto a = std::make_shared<TableArgs>();
  CLI::App* cmd =
      export_cmd.add_subcommand("table", "A sweep's results as a paper table (csv, md, tex)");
  cmd->add_option("--sweep", a->sweep, "sweep name")->required();
  cmd->add_option("--rows", a->rows, "axis of the rows, e.g. model.encoder_layers")->required();
  cmd->add_option("--cols", a->cols, "axis of the columns, e.g. model.init (default: one column)");
  cmd->add_option("--metric", a->metric, "final metric: test_bleu, valid_ppl, valid_loss, ...")
      ->required();
  cmd->add_option("--format", a->format, "csv | md | tex (default: from --out, else md)")
      ->check(CLI::IsMember({"csv", "md", "tex"}));
  cmd->add_option("--agg", a->agg, "several variants in a cell: mean (pool them) | best")
      ->check(CLI::IsMember({"mean", "best"}));
  CLI::Option* value =
      cmd->add_option("--value", a->value,
                      "each run's final value of the metric (validation and test: the best "
                      "checkpoint's), its best over training (lowest loss/ppl, highest BLEU), or "
                      "its last logged value, the end of training (final where it has no curve)")
          ->check(CLI::IsMember({"final", "best", "last"}));
  add_budget_option(cmd, a->at, value);
  cmd->add_option("--seeds", a->seeds,
                  "mean | mean±std | mean±ci95 (the 95 % t-interval of the mean; also written "
                  "mean+-std, mean+-ci95)")
      ->check(CLI::IsMember({"mean", "mean±std", "mean+-std", "mean±ci95", "mean+-ci95"}));
  cmd->add_option("--select-by", a->select_by,
                  "with --agg best: the final metric each cell's variant is chosen on, the mean "
                  "over its seeds (default valid_loss); --metric is then reported for it")
      ->capture_default_str();
  cmd->add_flag("--select-on-test", a->select_on_test,
                "allow --select-by to name a test metric (model selection on the test set: "
                "optimistic; the table says so)");
  cmd->add_option("--versus", a->versus,
                  "a row label: test every other row against it, column by column (Welch's "
                  "t-test over seeds, p-values in the cells)");
  cmd->add_option("--adjust", a->adjust,
                  "with --versus: holm (default: each p adjusted for the number of tests in the "
                  "table, Holm 1979) | none")
      ->check(CLI::IsMember({"holm", "none"}));
  cmd->add_option("--digits", a->digits, "decimals in md and tex (default 2)")
      ->check(CLI::Range(0, 10));
  cmd->add_option("--bold", a->bold, "bold the best cell per col | row | none")
      ->check(CLI::IsMember({"none", "col", "row"}));
  cmd->add_option("--direction", a->direction,
                  "which is better: auto (BLEU up, loss/ppl down) | max | min")
      ->check(CLI::IsMember({"auto", "max", "min"}));
  cmd->add_option("--where", a->where, kWhereHelp);
  cmd->add_option("--out", a->out, "write to this file instead of stdout");
  cmd->callback([a, &global] { export_table(*a, global); });
}

}  // namespace fathom::cli
