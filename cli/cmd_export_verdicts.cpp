// `fathom export verdicts --sweep NAME --rows AXIS [--cols AXIS] --metrics M1,M2 --versus ROW
// [--versus ROW2] [--agg best] [--alpha 0.05]`: every test a study's verdicts draw on as ONE
// Holm family (experiments/verdicts.h) -- its size and alpha, each test's raw and adjusted p,
// and for an inconclusive one the seeds per arm that would decide it. `--paired-bootstrap`
// adds, for each BLEU test, the paired bootstrap over the test set pooled over the seeds both
// arms share (base/metrics/bleu_bootstrap.h), from the hypotheses the runs stored.
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>

#include "base/metrics/bleu_bootstrap.h"
#include "base/util/error.h"
#include "base/util/strings.h"
#include "cli/commands.h"
#include "cli/export_output.h"
#include "cli/stored_hypotheses.h"
#include "experiments/verdicts.h"

namespace fathom::cli {
namespace {

struct VerdictArgs {
  std::string sweep, rows, cols, metrics, agg = "mean", value = "final", select_by = "valid_loss",
                                          where, format = "md", out;
  std::vector<std::string> versus;
  bool select_on_test = false, paired_bootstrap = false;
  double alpha = 0.05, power = 0.8;
  int digits = 3, samples = 1000;
  std::uint64_t seed = 12345;
};

std::string signed_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.2f", v);
  return buf;
}

// One BLEU test's paired bootstrap over the test set, pooled over the seeds both arms have: a
// Markdown row, or the row with why it could not be run.
std::string bootstrap_row(const experiments::VerdictTest& t, const db::Store& store,
                          const db::StorePaths& paths, const VerdictArgs& a) {
  std::vector<db::RunRecord> runs;  // versus, row; versus, row; ... one pair per shared seed
  for (const auto& [seed, row_id] : t.row_runs)
    if (auto it = t.versus_runs.find(seed); it != t.versus_runs.end()) {
      runs.push_back(*store.find_run(std::to_string(it->second)));
      runs.push_back(*store.find_run(std::to_string(row_id)));
    }
  const std::string head = "| " + t.column + " | " + t.row + " | " + t.versus + " | " +
                           std::to_string(runs.size() / 2) + " | ";
  if (runs.empty()) return head + "- | - | no seed in common |\n";
  const PairedInput in = paired_input(store, paths, runs);
  if (!in.why_not.empty()) return head + "- | - | " + in.why_not + " |\n";
  std::vector<HypothesisPair> pairs;
  for (size_t i = 0; i + 1 < in.hypotheses.size(); i += 2)
    pairs.push_back(HypothesisPair{in.hypotheses[i], in.hypotheses[i + 1]});
  const PairedBootstrap r = pooled_paired_bootstrap_bleu(pairs, in.references, a.samples, a.seed);
  char p[32];
  std::snprintf(p, sizeof p, "%.4f", r.p);
  return head + signed_number(r.difference) + " | [" + signed_number(r.difference_low) + ", " +
         signed_number(r.difference_high) + "] | " + p + " |\n";
}

// The BLEU tests' paired bootstraps, beside Welch's tests over seeds.
std::string bootstrap_section(const experiments::VerdictFamily& family, const db::Store& store,
                              const GlobalOptions& global, const VerdictArgs& a) {
  const db::StorePaths paths = resolve_store_paths(global);
  std::string rows;
  for (const auto& t : family.tests)
    if (t.metric.find("bleu") != std::string::npos) rows += bootstrap_row(t, store, paths, a);
  if (rows.empty()) return "";
  return "\nBLEU over the test set: the paired bootstrap pooled over the seeds both arms share "
         "(each seed's two hypothesis files resampled with the same sentences; the mean of row - "
         "versus; Koehn 2004), beside Welch's test over seeds above, not in its Holm family\n\n"
         "| column | row | versus | seeds paired | row - versus | 95 % interval | p |\n"
         "| --- | --- | --- | ---: | ---: | --- | ---: |\n" +
         rows + "\n*" + std::to_string(a.samples) + " draws, seed " + std::to_string(a.seed) +
         "*\n";
}

void export_verdicts(const VerdictArgs& a, const GlobalOptions& global) {
  experiments::VerdictOptions o;
  o.table.rows = a.rows;
  o.table.cols = a.cols;
  o.table.agg = a.agg == "best" ? experiments::CellAgg::Best : experiments::CellAgg::Mean;
  o.table.select_by = a.select_by;
  o.table.select_on_test = a.select_on_test;
  o.table.value = experiments::run_value_named(a.value, "fathom export verdicts");
  for (const auto& m : split(a.metrics, ','))
    if (!trim(m).empty()) o.metrics.push_back(trim(m));
  o.versus = a.versus;
  o.alpha = a.alpha;
  o.power = a.power;
  const auto store = db::Store::open(resolve_db_path(global), db::OpenMode::ReadOnly);
  const experiments::VerdictFamily family = experiments::sweep_verdicts(store, a.sweep, o, a.where);
  std::string text = a.format == "csv" ? experiments::verdicts_to_csv(family)
                                       : experiments::verdicts_to_markdown(family, a.digits);
  if (a.paired_bootstrap && a.format == "md") text += bootstrap_section(family, store, global, a);
  write_export(text, a.out, "(" + std::to_string(family.tests.size()) + " tests)");
}

}  // namespace

void add_export_verdicts_command(CLI::App& export_cmd, GlobalOptions& global) {
  auto a = std::make_shared<VerdictArgs>();
  CLI::App* cmd = export_cmd.add_subcommand(
      "verdicts",
      "A study's tests as one Holm family: raw and adjusted p, and the seeds that would decide "
      "each inconclusive one");
  cmd->add_option("--sweep", a->sweep, "sweep name")->required();
  cmd->add_option("--rows", a->rows, "axis of the rows (the methods), as for export table")
      ->required();
  cmd->add_option("--cols", a->cols, "axis of the columns (e.g. the depth)");
  cmd->add_option("--metrics", a->metrics,
                  "the metrics the verdicts draw on, comma-separated, e.g. valid_ppl,test_bleu")
      ->required();
  cmd->add_option("--versus", a->versus,
                  "a reference row each other row is tested against; repeat for several (a pair "
                  "met twice is one test)")
      ->required();
  cmd->add_option("--agg", a->agg, "several variants in a cell: mean | best (as export table)")
      ->check(CLI::IsMember({"mean", "best"}));
  cmd->add_option("--select-by", a->select_by,
                  "with --agg best: the final metric each variant is chosen on (default "
                  "valid_loss)")
      ->capture_default_str();
  cmd->add_flag("--select-on-test", a->select_on_test,
                "allow --select-by to name a test metric (model selection on the test set)");
  cmd->add_option("--value", a->value, "each run's final | best | last value, as export table")
      ->check(CLI::IsMember({"final", "best", "last"}));
  cmd->add_option("--alpha", a->alpha, "the family-wise level (default 0.05)")
      ->capture_default_str();
  cmd->add_option("--power", a->power, "the power the seeds needed are planned for (default 0.8)")
      ->capture_default_str();
  cmd->add_option("--digits", a->digits, "decimals of the means (md)")->check(CLI::Range(0, 10));
  cmd->add_option("--format", a->format, "md | csv")->check(CLI::IsMember({"md", "csv"}));
  cmd->add_flag("--paired-bootstrap", a->paired_bootstrap,
                "for each BLEU test, also the paired bootstrap over the test set, pooled over the "
                "seeds both arms share, from the runs' stored hypotheses (md)");
  cmd->add_option("--samples", a->samples, "bootstrap draws (default 1000)")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--seed", a->seed, "the draws' seed (default 12345)");
  cmd->add_option("--where", a->where, kWhereHelp);
  cmd->add_option("--out", a->out, "write to this file instead of stdout");
  cmd->callback([a, &global] { export_verdicts(*a, global); });
}

}  // namespace fathom::cli
