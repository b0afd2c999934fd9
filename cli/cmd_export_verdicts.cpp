// `fathom export verdicts --sweep NAME --rows AXIS [--cols AXIS] --metrics M1,M2 --versus ROW
// [--versus ROW2] [--agg best] [--alpha 0.05]`: every test a study's verdicts draw on as ONE
// Holm family (experiments/verdicts.h) -- its size and alpha, each test's raw and adjusted p,
// and for an inconclusive one the seeds per arm that would decide it. `--paired-bootstrap`
// adds, for each BLEU test, the paired bootstrap over the test set pooled over the seeds both
// arms share (base/metrics/bleu_bootstrap.h), from the hypotheses the runs stored; for each
// valid_ppl or test_ppl test, the same over that split's segments' stored NLL
// (base/metrics/perplexity_bootstrap.h); and beside each, the test over every seed of both arms
// and the test set at once (base/metrics/seed_pooled_test.h: seed_arms_bleu, _perplexity).
#include <cstdint>
#include <cstdio>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <stdexcept>

#include "base/metrics/bleu_bootstrap.h"
#include "base/metrics/perplexity_bootstrap.h"
#include "base/util/error.h"
#include "base/util/strings.h"
#include "cli/commands.h"
#include "cli/export_output.h"
#include "cli/paired_tests.h"
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

// A test's two arms' runs paired by the seeds both have: versus, row; versus, row; ...
std::vector<db::RunRecord> runs_paired_by_seed(const experiments::VerdictTest& t,
                                               const db::Store& store) {
  std::vector<db::RunRecord> runs;
  for (const auto& [seed, row_id] : t.row_runs)
    if (auto it = t.versus_runs.find(seed); it != t.versus_runs.end()) {
      runs.push_back(*store.find_run(std::to_string(it->second)));
      runs.push_back(*store.find_run(std::to_string(row_id)));
    }
  return runs;
}

// The runs of a test's arm: its seeds' runs.
std::vector<db::RunRecord> arm_runs(const std::map<std::string, int64_t>& by_seed,
                                    const db::Store& store) {
  std::vector<db::RunRecord> runs;
  for (const auto& [seed, id] : by_seed) runs.push_back(*store.find_run(std::to_string(id)));
  return runs;
}

// One test's paired bootstrap over the evaluation set, pooled over the seeds both arms have:
// `pooled` runs it on the pairs' runs and says why not, or nothing. `over_seeds` runs the test
// over every seed of each arm and the test set (base/metrics/seed_pooled_test.h), or says why
// not.
using PooledTest =
    std::function<std::string(const std::vector<db::RunRecord>& runs, PairedBootstrap& result)>;
using SeedsTest =
    std::function<std::string(const std::vector<db::RunRecord>& row,
                              const std::vector<db::RunRecord>& versus, SeedArmsTest& result)>;

// A row of the BLEU table, or with `metric` and the draws' block length (1: segments drawn
// singly) one of the perplexity table: the paired bootstrap's cells, then the test over seeds'.
std::string bootstrap_row(const experiments::VerdictTest& t, const db::Store& store,
                          const PooledTest& pooled, const SeedsTest& over_seeds,
                          const std::string& metric = "") {
  const bool perplexity = !metric.empty();
  const std::vector<db::RunRecord> runs = runs_paired_by_seed(t, store);
  std::string row = "| " + metric + (perplexity ? " | " : "") + t.column + " | " + t.row + " | " +
                    t.versus + " | " + std::to_string(runs.size() / 2) + " | ";
  const std::string no_blocks = perplexity ? "- | " : "";
  PairedBootstrap r;
  const std::string why_not = runs.empty() ? "no seed in common" : pooled(runs, r);
  if (!why_not.empty())
    row += "- | - | " + no_blocks + why_not + " | ";
  else
    row += signed_number(r.difference) + " | [" + signed_number(r.difference_low) + ", " +
           signed_number(r.difference_high) + "] | " +
           (perplexity ? std::to_string(r.block_length) + " | " : "") + experiments::paired_p(r.p) +
           " | ";
  const std::vector<db::RunRecord> row_runs = arm_runs(t.row_runs, store),
                                   versus_runs = arm_runs(t.versus_runs, store);
  row += std::to_string(row_runs.size()) + "/" + std::to_string(versus_runs.size()) + " | ";
  SeedArmsTest seeds;
  const std::string seeds_why_not = over_seeds(row_runs, versus_runs, seeds);
  if (!seeds_why_not.empty()) return row + "- | " + seeds_why_not + " |\n";
  return row + "[" + signed_number(seeds.low) + ", " + signed_number(seeds.high) + "] | " +
         experiments::paired_p(seeds.p) + " |\n";
}

// Runs `test` where both arms have runs and one has two, turning a refusal into why not.
std::string seeds_test_or_why(const std::vector<db::RunRecord>& row,
                              const std::vector<db::RunRecord>& versus,
                              const std::function<void()>& test) {
  if (row.empty() || versus.empty() || (row.size() < 2 && versus.size() < 2))
    return "fewer than two seeds";
  try {
    test();
  } catch (const std::invalid_argument& e) {  // other tokenisations, other lengths
    return e.what();
  }
  return "";
}

SeedsTest seeds_bleu(const db::Store& store, const db::StorePaths& paths, const VerdictArgs& a) {
  return [&store, paths, &a](const std::vector<db::RunRecord>& row,
                             const std::vector<db::RunRecord>& versus, SeedArmsTest& result) {
    std::vector<db::RunRecord> runs = row;
    runs.insert(runs.end(), versus.begin(), versus.end());
    const PairedInput in = paired_input(store, paths, runs);
    if (!in.why_not.empty()) return in.why_not;
    return seeds_test_or_why(row, versus, [&] {
      const auto split = in.hypotheses.begin() + static_cast<std::ptrdiff_t>(row.size());
      result = seed_arms_bleu({in.hypotheses.begin(), split}, {split, in.hypotheses.end()},
                              in.references, a.samples, a.seed);
    });
  };
}

SeedsTest seeds_perplexity(const db::Store& store, const db::StorePaths& paths,
                           const std::string& split) {
  return [&store, paths, split](const std::vector<db::RunRecord>& row,
                                const std::vector<db::RunRecord>& versus, SeedArmsTest& result) {
    std::vector<db::RunRecord> runs = row;
    runs.insert(runs.end(), versus.begin(), versus.end());
    const NllInput in = segment_nll_input(store, paths, runs, split);
    if (!in.why_not.empty()) return in.why_not;
    return seeds_test_or_why(row, versus, [&] {
      const auto middle = in.segments.begin() + static_cast<std::ptrdiff_t>(row.size());
      result = seed_arms_perplexity({in.segments.begin(), middle}, {middle, in.segments.end()},
                                    evaluation_segments(runs.front()).order);
    });
  };
}

PooledTest pooled_bleu(const db::Store& store, const db::StorePaths& paths, const VerdictArgs& a) {
  return [&store, paths, &a](const std::vector<db::RunRecord>& runs, PairedBootstrap& result) {
    const PairedInput in = paired_input(store, paths, runs);
    if (!in.why_not.empty()) return in.why_not;
    std::vector<HypothesisPair> pairs;
    for (size_t i = 0; i + 1 < in.hypotheses.size(); i += 2)
      pairs.push_back(HypothesisPair{in.hypotheses[i], in.hypotheses[i + 1]});
    result = pooled_paired_bootstrap_bleu(pairs, in.references, a.samples, a.seed);
    return std::string();
  };
}

// valid_ppl or test_ppl: the NLL of that split's segments.
PooledTest pooled_perplexity(const db::Store& store, const db::StorePaths& paths,
                             const VerdictArgs& a, const std::string& split) {
  return
      [&store, paths, &a, split](const std::vector<db::RunRecord>& runs, PairedBootstrap& result) {
        const NllInput in = segment_nll_input(store, paths, runs, split);
        if (!in.why_not.empty()) return in.why_not;
        std::vector<NllPair> pairs;
        for (size_t i = 0; i + 1 < in.segments.size(); i += 2)
          pairs.push_back(NllPair{in.segments[i], in.segments[i + 1]});
        try {
          result = pooled_paired_bootstrap_perplexity(pairs, a.samples, a.seed,
                                                      evaluation_segments(runs.front()).order);
        } catch (const std::invalid_argument& e) {  // other tokenisations
          return std::string(e.what());
        }
        return std::string();
      };
}

// What the last columns are: the paired bootstrap holds the seeds fixed, Welch the test set.
const std::string kOverSeedsNote =
    ". The last columns count both: every seed of each arm (row/versus) and the test set's "
    "error of their difference that neither arm's spread shows, a generalised t test "
    "(docs/methods.md \"A "
    "configuration over its seeds\"); where seeds differ it is the one that speaks for the "
    "configurations rather than these runs";

// The BLEU and perplexity tests' paired bootstraps, beside Welch's tests over seeds.
std::string bootstrap_section(const experiments::VerdictFamily& family, const db::Store& store,
                              const GlobalOptions& global, const VerdictArgs& a) {
  const db::StorePaths paths = resolve_store_paths(global);
  std::string bleu_rows, ppl_rows;
  for (const auto& t : family.tests) {
    if (t.metric.find("bleu") != std::string::npos)
      bleu_rows +=
          bootstrap_row(t, store, pooled_bleu(store, paths, a), seeds_bleu(store, paths, a));
    for (const std::string split : {"valid", "test"})
      if (t.metric == split + "_ppl")
        ppl_rows += bootstrap_row(t, store, pooled_perplexity(store, paths, a, split),
                                  seeds_perplexity(store, paths, split), t.metric);
  }
  std::string text;
  if (!bleu_rows.empty())
    text +=
        "\nBLEU over the test set: the paired bootstrap pooled over the seeds both arms share "
        "(each seed's two hypothesis files resampled with the same sentences; the mean of "
        "row - versus; Koehn 2004), beside Welch's test over seeds above, not in its Holm "
        "family" +
        kOverSeedsNote +
        "\n\n| column | row | versus | seeds paired | row - versus | 95 % interval | p | seeds | "
        "over seeds and sentences: 95 % | p |\n"
        "| --- | --- | --- | ---: | ---: | --- | ---: | ---: | --- | ---: |\n" +
        bleu_rows;
  if (!ppl_rows.empty())
    text +=
        "\nPerplexity over its evaluation set: the same paired bootstrap on the NLL of every "
        "segment each run stored (corpus perplexity of each draw; negative is better), "
        "beside Welch's test over seeds above, not in its Holm family. A language model's text "
        "cut into blocks is drawn in circular blocks of that many neighbouring segments "
        "(`block`; Politis & White 2004), its difference's test studentised by a flat-top "
        "standard error (Goetze & Kuensch 1996); 1 where segments are independent" +
        kOverSeedsNote +
        "\n\n| metric | column | row | versus | seeds paired | row - versus | 95 % interval | "
        "block | p | seeds | over seeds and sentences: 95 % | p |\n"
        "| --- | --- | --- | --- | ---: | ---: | --- | ---: | ---: | ---: | --- | ---: |\n" +
        ppl_rows;
  if (text.empty()) return "";
  return text + "\n*" + std::to_string(a.samples) + " draws, seed " + std::to_string(a.seed) +
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
                "for each BLEU, valid_ppl or test_ppl test, also the paired bootstrap over its "
                "evaluation set, pooled over the seeds both arms share, from the runs' stored "
                "hypotheses or segment NLL (md)");
  cmd->add_option("--samples", a->samples, "bootstrap draws (default 1000)")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--seed", a->seed, "the draws' seed (default 12345)");
  cmd->add_option("--where", a->where, kWhereHelp);
  cmd->add_option("--out", a->out, "write to this file instead of stdout");
  cmd->callback([a, &global] { export_verdicts(*a, global); });
}

}  // namespace fathom::cli
