// `fathom export verdicts --sweep NAME --rows AXIS [--cols AXIS] --metrics M1,M2 --versus ROW
// [--versus ROW2] [--agg best] [--alpha 0.05]`: every test a study's verdicts draw on as ONE
// Holm family (experiments/verdicts.h) -- its size and alpha, each test's raw and adjusted p,
// and for an inconclusive one the seeds per arm that would decide it. `--paired-bootstrap`
// adds, for each BLEU test, the paired bootstrap over the test set pooled over the seeds both
// arms share (base/metrics/bleu_bootstrap.h), from the hypotheses the runs stored; for each
// valid_ppl or test_ppl test, the same over that split's segments' stored NLL
// (base/metrics/perplexity_bootstrap.h); and beside each, the test over every seed of both arms
// and the test set at once (base/metrics/seed_pooled_test.h: seed_arms_bleu, _perplexity),
// Holm-adjusted over the family with a verdict of its own (cli/verdicts_over_test_set.h); in
// Markdown as tables after the family's, in CSV as more columns of each test's row.
#include <algorithm>
#include <cstdint>
#include <memory>

#include "base/util/error.h"
#include "base/util/strings.h"
#include "cli/commands.h"
#include "cli/export_output.h"
#include "cli/option_checks.h"
#include "cli/verdicts_over_test_set.h"
#include "experiments/value_at_budget.h"
#include "experiments/verdicts.h"

namespace fathom::cli {
namespace {

struct VerdictArgs {
  std::string sweep, rows, cols, agg = "mean", value = "final", select_by = "valid_loss", where,
                                 format = "md", out, at;
  std::vector<std::string> metrics, versus;
  bool select_on_test = false, paired_bootstrap = false, pair_seeds = false;
  double alpha = 0.05, power = 0.8;
  int digits = 3, samples = 1000;
  std::uint64_t seed = 12345;
};

void export_verdicts(const VerdictArgs& a, const GlobalOptions& global) {
  experiments::VerdictOptions o;
  o.table.rows = a.rows;
  o.table.cols = a.cols;
  o.table.agg = a.agg == "best" ? experiments::CellAgg::Best : experiments::CellAgg::Mean;
  o.table.select_by = a.select_by;
  o.table.select_on_test = a.select_on_test;
  o.table.value = experiments::run_value_named(a.value, "fathom export verdicts");
  o.table.at = experiments::budget_option(a.at, "fathom export verdicts");
  // The test set's hypotheses and segment NLL are the final model's: none exist at a budget.
  if (o.table.at && a.paired_bootstrap)
    throw InputError("fathom export verdicts", 0, "--at",
                     "--paired-bootstrap reads the test set's hypotheses and segment NLL the "
                     "runs stored at their end; at a budget there are none (drop one of the two)");
  for (const auto& m : a.metrics)
    if (!trim(m).empty() &&
        std::find(o.metrics.begin(), o.metrics.end(), trim(m)) == o.metrics.end())
      o.metrics.push_back(trim(m));
  o.versus = a.versus;
  o.alpha = a.alpha;
  o.power = a.power;
  const auto store = db::Store::open(resolve_db_path(global), db::OpenMode::ReadOnly);
  const experiments::VerdictFamily family = experiments::sweep_verdicts(store, a.sweep, o, a.where);
  if (!a.paired_bootstrap) {
    write_export(a.format == "csv" ? experiments::verdicts_to_csv(family)
                                   : experiments::verdicts_to_markdown(family, a.digits),
                 a.out, "(" + std::to_string(family.tests.size()) + " tests)");
    return;
  }
  const TestSetOptions options{a.samples, a.seed, a.pair_seeds};
  const std::vector<TestSetVerdict> over_set =
      verdicts_over_test_set(family, store, resolve_store_paths(global), options);
  const std::string text =
      a.format == "csv"
          ? experiments::verdicts_to_csv(family, test_set_verdicts_csv(family, over_set))
          : experiments::verdicts_to_markdown(family, a.digits) +
                test_set_verdicts_markdown(family, over_set, options);
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
                  "the metrics the verdicts draw on, comma-separated (or the option repeated), "
                  "e.g. valid_ppl,test_bleu")
      ->delimiter(',')
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
  CLI::Option* value =
      cmd->add_option("--value", a->value, "each run's final | best | last value, as export table")
          ->check(CLI::IsMember({"final", "best", "last"}));
  add_budget_option(cmd, a->at, value);
  cmd->add_option("--alpha", a->alpha, "the family-wise level (default 0.05)")
      ->capture_default_str();
  cmd->add_option("--power", a->power, "the power the seeds needed are planned for (default 0.8)")
      ->capture_default_str();
  cmd->add_option("--digits", a->digits, "decimals of the means (md)")->check(CLI::Range(0, 10));
  cmd->add_option("--format", a->format, "md | csv")->check(CLI::IsMember({"md", "csv"}));
  cmd->add_flag("--paired-bootstrap", a->paired_bootstrap,
                "for each BLEU, valid_ppl or test_ppl test, also the paired bootstrap over its "
                "evaluation set, pooled over the seeds both arms share, and the test over every "
                "seed of both arms and the test set (Holm-adjusted over the family), from the "
                "runs' stored hypotheses or segment NLL");
  cmd->add_flag("--pair-seeds", a->pair_seeds,
                "with --paired-bootstrap: the test over seeds and sentences on the seeds both "
                "arms have, paired by seed (each seed gives both arms the same initialisation "
                "and data order); choose it before seeing the results")
      ->needs("--paired-bootstrap");
  cmd->add_option("--samples", a->samples, "bootstrap draws (default 1000)")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--seed", a->seed, "the draws' seed (default 12345)");
  cmd->add_option("--where", a->where, kWhereHelp);
  cmd->add_option("--out", a->out, "write to this file instead of stdout");
  cmd->callback([a, &global] { export_verdicts(*a, global); });
}

}  // namespace fathom::cli
