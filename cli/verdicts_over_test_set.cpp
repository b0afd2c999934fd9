#include "cli/verdicts_over_test_set.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <stdexcept>

#include "base/metrics/bleu_bootstrap.h"
#include "base/metrics/perplexity_bootstrap.h"
#include "base/metrics/statistics.h"
#include "base/util/csv_field.h"
#include "base/util/progress.h"
#include "cli/paired_tests.h"
#include "cli/stored_hypotheses.h"
#include "experiments/paired_test.h"

namespace fathom::cli {
namespace {

// Families up to this many tests finish in about a second: no progress bar.
constexpr size_t kQuietTestSetTests = 8;

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

// `pooled` runs the paired bootstrap on the pairs' runs and says why not, or nothing;
// `over_seeds` the test over every seed of each arm and the test set, or says why not.
using PooledTest =
    std::function<std::string(const std::vector<db::RunRecord>& runs, PairedBootstrap& result)>;
using SeedsTest =
    std::function<std::string(const std::vector<db::RunRecord>& row,
                              const std::vector<db::RunRecord>& versus, SeedArmsTest& result)>;

// Runs `test` where both arms have runs and one has two, turning a refusal into why not.
std::string seeds_test_or_why(const std::vector<db::RunRecord>& row,
                              const std::vector<db::RunRecord>& versus, bool paired,
                              const std::function<void()>& test) {
  if (paired && row.size() < 2) return "fewer than two seeds in common";
  if (row.empty() || versus.empty() || (row.size() < 2 && versus.size() < 2))
    return "fewer than two seeds";
  try {
    test();
  } catch (const std::invalid_argument& e) {  // other tokenisations, other lengths
    return e.what();
  }
  return "";
}

std::vector<db::RunRecord> both_arms(const std::vector<db::RunRecord>& row,
                                     const std::vector<db::RunRecord>& versus) {
  std::vector<db::RunRecord> runs = row;
  runs.insert(runs.end(), versus.begin(), versus.end());
  return runs;
}

SeedsTest seeds_bleu(const db::Store& store, const db::StorePaths& paths, const TestSetOptions& o) {
  return [&store, paths, o](const std::vector<db::RunRecord>& row,
                            const std::vector<db::RunRecord>& versus, SeedArmsTest& result) {
    const PairedInput in = paired_input(store, paths, both_arms(row, versus));
    if (!in.why_not.empty()) return in.why_not;
    return seeds_test_or_why(row, versus, o.pair_seeds, [&] {
      const auto split = in.hypotheses.begin() + static_cast<std::ptrdiff_t>(row.size());
      const auto test = o.pair_seeds ? seed_paired_bleu : seed_arms_bleu;
      result = test({in.hypotheses.begin(), split}, {split, in.hypotheses.end()}, in.references,
                    o.samples, o.seed);
    });
  };
}

SeedsTest seeds_perplexity(const db::Store& store, const db::StorePaths& paths,
                           const TestSetOptions& o, const std::string& split) {
  const bool pair_seeds = o.pair_seeds;
  return [&store, paths, split, pair_seeds](const std::vector<db::RunRecord>& row,
                                            const std::vector<db::RunRecord>& versus,
                                            SeedArmsTest& result) {
    const std::vector<db::RunRecord> runs = both_arms(row, versus);
    const NllInput in = segment_nll_input(store, paths, runs, split);
    if (!in.why_not.empty()) return in.why_not;
    return seeds_test_or_why(row, versus, pair_seeds, [&] {
      const auto middle = in.segments.begin() + static_cast<std::ptrdiff_t>(row.size());
      const auto test = pair_seeds ? seed_paired_perplexity : seed_arms_perplexity;
      result = test({in.segments.begin(), middle}, {middle, in.segments.end()},
                    evaluation_segments(runs.front()).order);
    });
  };
}

PooledTest pooled_bleu(const db::Store& store, const db::StorePaths& paths,
                       const TestSetOptions& o) {
  return [&store, paths, o](const std::vector<db::RunRecord>& runs, PairedBootstrap& result) {
    const PairedInput in = paired_input(store, paths, runs);
    if (!in.why_not.empty()) return in.why_not;
    std::vector<HypothesisPair> pairs;
    for (size_t i = 0; i + 1 < in.hypotheses.size(); i += 2)
      pairs.push_back(HypothesisPair{in.hypotheses[i], in.hypotheses[i + 1]});
    result = pooled_paired_bootstrap_bleu(pairs, in.references, o.samples, o.seed);
    return std::string();
  };
}

// valid_ppl or test_ppl: the NLL of that split's segments.
PooledTest pooled_perplexity(const db::Store& store, const db::StorePaths& paths,
                             const TestSetOptions& o, const std::string& split) {
  return
      [&store, paths, o, split](const std::vector<db::RunRecord>& runs, PairedBootstrap& result) {
        const NllInput in = segment_nll_input(store, paths, runs, split);
        if (!in.why_not.empty()) return in.why_not;
        std::vector<NllPair> pairs;
        for (size_t i = 0; i + 1 < in.segments.size(); i += 2)
          pairs.push_back(NllPair{in.segments[i], in.segments[i + 1]});
        try {
          result = pooled_paired_bootstrap_perplexity(pairs, o.samples, o.seed,
                                                      evaluation_segments(runs.front()).order);
        } catch (const std::invalid_argument& e) {  // other tokenisations
          return std::string(e.what());
        }
        return std::string();
      };
}

std::string signed_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.2f", v);
  return buf;
}

std::string csv_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// What would decide the test over seeds at alpha / m, Holm's first step, with 80 % power.
SeedsToDecide plan_of(const TestSetVerdict& v, double alpha, size_t family_size) {
  return seeds_to_decide(*v.over_seeds,
                         alpha / static_cast<double>(std::max<size_t>(family_size, 1)));
}

// The plan as a CSV cell: seeds per arm (pairs), "10000+", "test set" where the shared error
// alone is too large, or "" where no difference was observed.
std::string plan_cell(const SeedsToDecide& plan) {
  if (plan.test_set_limits) return "test set";
  if (plan.seeds == 0) return "";
  return plan.seeds > kMostSeedsPlanned ? std::to_string(kMostSeedsPlanned) + "+"
                                        : std::to_string(plan.seeds);
}

// A row of the BLEU table, or of the perplexity table (its metric first and the draws' block):
// the paired bootstrap's cells, then the test over seeds' with its Holm p and verdict.
std::string markdown_row(const experiments::VerdictTest& t, const TestSetVerdict& v, double alpha,
                         size_t family_size) {
  std::string row = "| " + (v.perplexity ? t.metric + " | " : "") + t.column + " | " + t.row +
                    " | " + t.versus + " | " + std::to_string(v.seeds_paired) + " | ";
  if (!v.pooled)
    row += "- | - | " + std::string(v.perplexity ? "- | " : "") + v.pooled_why_not + " | ";
  else
    row += signed_number(v.pooled->difference) + " | [" + signed_number(v.pooled->difference_low) +
           ", " + signed_number(v.pooled->difference_high) + "] | " +
           (v.perplexity ? std::to_string(v.pooled->block_length) + " | " : "") +
           experiments::paired_p(v.pooled->p) + " | ";
  row += (v.over_seeds && v.over_seeds->paired_by_seed
              ? std::to_string(v.row_seeds) + " paired"
              : std::to_string(v.row_seeds) + "/" + std::to_string(v.versus_seeds)) +
         " | ";
  if (!v.over_seeds) return row + "- | " + v.over_seeds_why_not + " | - | - |\n";
  return row + "[" + signed_number(v.over_seeds->low) + ", " + signed_number(v.over_seeds->high) +
         "] | " + experiments::paired_p(v.over_seeds->p) + " | " +
         experiments::paired_p(v.over_seeds_holm) + " | " +
         over_seeds_verdict(v, alpha, family_size) + " |\n";
}

// What the last columns are: the paired bootstrap holds the seeds fixed, Welch the test set.
const char* const kOverSeedsNote =
    ". The last columns count both: every seed of each arm (row/versus) and the test set's "
    "error of their difference that neither arm's spread shows, a generalised t test "
    "(docs/methods.md \"A configuration over its seeds\"), its p Holm-adjusted over the "
    "family's tests as Welch's is; where seeds differ it is the one that speaks for the "
    "configurations rather than these runs";

TestSetVerdict test_over_set(const experiments::VerdictTest& t, const db::Store& store,
                             const PooledTest& pooled, const SeedsTest& over_seeds, bool paired) {
  TestSetVerdict v;
  const std::vector<db::RunRecord> pairs = runs_paired_by_seed(t, store);
  v.seeds_paired = pairs.size() / 2;
  PairedBootstrap r;
  v.pooled_why_not = pairs.empty() ? "no seed in common" : pooled(pairs, r);
  if (v.pooled_why_not.empty()) v.pooled = r;
  std::vector<db::RunRecord> row, versus;
  if (paired)  // the seeds both arms have, in one order
    for (size_t i = 0; i + 1 < pairs.size(); i += 2) {
      versus.push_back(pairs[i]);
      row.push_back(pairs[i + 1]);
    }
  else {
    row = arm_runs(t.row_runs, store);
    versus = arm_runs(t.versus_runs, store);
  }
  v.row_seeds = row.size();
  v.versus_seeds = versus.size();
  SeedArmsTest seeds;
  v.over_seeds_why_not = over_seeds(row, versus, seeds);
  if (v.over_seeds_why_not.empty()) v.over_seeds = seeds;
  return v;
}

// Holm over the whole family: a test with no test over seeds enters with p = 1, so the
// adjustment is what it would be had every test of the family one.
void adjust_over_family(std::vector<TestSetVerdict>& verdicts, size_t family_size) {
  std::vector<double> p(family_size, 1.0);
  for (const auto& v : verdicts)
    if (v.over_seeds) p[v.test] = v.over_seeds->p;
  const std::vector<double> adjusted = holm_adjust(p);
  for (auto& v : verdicts) v.over_seeds_holm = v.over_seeds ? adjusted[v.test] : 1.0;
}

}  // namespace

std::vector<TestSetVerdict> verdicts_over_test_set(const experiments::VerdictFamily& family,
                                                   const db::Store& store,
                                                   const db::StorePaths& paths,
                                                   const TestSetOptions& options) {
  std::vector<TestSetVerdict> verdicts;
  // Each test reads its runs' files and draws twice; a study of dozens of tests on
  // newstest2014 takes a while, and the app's progress dialog follows the bar's lines.
  ProgressBar bar("tests over the test set", static_cast<int64_t>(family.tests.size()),
                  family.tests.size() > kQuietTestSetTests);
  for (size_t i = 0; i < family.tests.size(); ++i) {
    bar.update(static_cast<int64_t>(i), family.tests[i].row + " vs " + family.tests[i].versus);
    const auto& t = family.tests[i];
    std::optional<TestSetVerdict> v;
    if (t.metric.find("bleu") != std::string::npos)
      v = test_over_set(t, store, pooled_bleu(store, paths, options),
                        seeds_bleu(store, paths, options), options.pair_seeds);
    for (const std::string split : {"valid", "test"})
      if (t.metric == split + "_ppl") {
        v = test_over_set(t, store, pooled_perplexity(store, paths, options, split),
                          seeds_perplexity(store, paths, options, split), options.pair_seeds);
        v->perplexity = true;
      }
    if (!v) continue;
    v->test = i;
    verdicts.push_back(*v);
  }
  bar.finish("");
  adjust_over_family(verdicts, family.tests.size());
  return verdicts;
}

std::string over_seeds_verdict(const TestSetVerdict& v, double alpha, size_t family_size) {
  if (!v.over_seeds) return "-";
  if (v.over_seeds_holm < alpha)
    return v.over_seeds->difference < 0 ? "decided: lower" : "decided: higher";
  const SeedsToDecide plan = plan_of(v, alpha, family_size);
  if (plan.test_set_limits) return "inconclusive; no number of seeds: a larger test set";
  if (plan.seeds == 0) return "inconclusive; no difference observed";
  if (plan.seeds > kMostSeedsPlanned)
    return "inconclusive; more than " + std::to_string(kMostSeedsPlanned) +
           " per arm would be needed";
  const std::string unit = v.over_seeds->paired_by_seed ? " pairs" : " per arm";
  const size_t have = std::min(v.over_seeds->seeds_a, v.over_seeds->seeds_b);
  // The normal's plan ignores how few degrees of freedom k seeds give: where it is met already,
  // what is missing is those, "a few more".
  if (static_cast<size_t>(plan.seeds) <= have)
    return "inconclusive at " + std::to_string(have) + unit + ", though the normal's plan needs " +
           std::to_string(plan.seeds) + ": a few more would decide it";
  return "inconclusive; about " + std::to_string(plan.seeds) + unit + " would decide it";
}

std::string test_set_verdicts_markdown(const experiments::VerdictFamily& family,
                                       const std::vector<TestSetVerdict>& verdicts,
                                       const TestSetOptions& options) {
  std::string bleu_rows, ppl_rows;
  for (const auto& v : verdicts)
    (v.perplexity ? ppl_rows : bleu_rows) +=
        markdown_row(family.tests[v.test], v, family.alpha, family.tests.size());
  const std::string m = std::to_string(family.tests.size());
  std::string text;
  if (!bleu_rows.empty())
    text += std::string(
                "\nBLEU over the test set: the paired bootstrap pooled over the seeds both arms "
                "share (each seed's two hypothesis files resampled with the same sentences; the "
                "mean of row - versus; Koehn 2004), beside Welch's test over seeds above, not in "
                "its Holm family") +
            kOverSeedsNote +
            "\n\n| column | row | versus | seeds paired | row - versus | 95 % interval | p | "
            "seeds | over seeds and sentences: 95 % | p | p (Holm, " +
            m +
            ") | verdict |\n"
            "| --- | --- | --- | ---: | ---: | --- | ---: | ---: | --- | ---: | ---: | --- |\n" +
            bleu_rows;
  if (!ppl_rows.empty())
    text += std::string(
                "\nPerplexity over its evaluation set: the same paired bootstrap on the NLL of "
                "every segment each run stored (corpus perplexity of each draw; negative is "
                "better), beside Welch's test over seeds above, not in its Holm family. A "
                "language model's text cut into blocks is drawn in circular blocks of that many "
                "neighbouring segments (`block`; Politis & White 2004), its difference's test "
                "studentised by a flat-top standard error (Goetze & Kuensch 1996); 1 where "
                "segments are independent") +
            kOverSeedsNote +
            "\n\n| metric | column | row | versus | seeds paired | row - versus | 95 % interval | "
            "block | p | seeds | over seeds and sentences: 95 % | p | p (Holm, " +
            m +
            ") | verdict |\n"
            "| --- | --- | --- | --- | ---: | ---: | --- | ---: | ---: | ---: | --- | ---: | ---: "
            "| --- |\n" +
            ppl_rows;
  if (text.empty()) return "";
  return text + "\n*" + std::to_string(options.samples) + " draws, seed " +
         std::to_string(options.seed) +
         (options.pair_seeds
              ? "; over seeds and sentences paired by seed (`--pair-seeds`): each seed's "
                "difference row - versus, so what a seed gives both arms cancels, on k - 1 "
                "degrees of freedom"
              : "") +
         "*\n";
}

experiments::VerdictCsvColumns test_set_verdicts_csv(const experiments::VerdictFamily& family,
                                                     const std::vector<TestSetVerdict>& verdicts) {
  experiments::VerdictCsvColumns out;
  out.header =
      "seeds_paired,pooled_difference,pooled_low,pooled_high,pooled_block,pooled_p,"
      "pooled_why_not,seeds_row,seeds_versus,over_seeds_difference,over_seeds_low,"
      "over_seeds_high,over_seeds_p,over_seeds_p_holm,over_seeds_decided,over_seeds_paired,"
      "over_seeds_seeds_needed,over_seeds_why_not";
  const std::string none(17, ',');  // 18 empty fields
  out.cells.assign(family.tests.size(), none);
  for (const auto& v : verdicts) {
    std::string row = std::to_string(v.seeds_paired) + ",";
    if (v.pooled)
      row += csv_number(v.pooled->difference) + "," + csv_number(v.pooled->difference_low) + "," +
             csv_number(v.pooled->difference_high) + "," + std::to_string(v.pooled->block_length) +
             "," + csv_number(v.pooled->p) + ",,";
    else
      row += ",,,,," + csv_field(v.pooled_why_not) + ",";
    row += std::to_string(v.row_seeds) + "," + std::to_string(v.versus_seeds) + ",";
    if (v.over_seeds)
      row += csv_number(v.over_seeds->difference) + "," + csv_number(v.over_seeds->low) + "," +
             csv_number(v.over_seeds->high) + "," + csv_number(v.over_seeds->p) + "," +
             csv_number(v.over_seeds_holm) + "," +
             (v.over_seeds_holm < family.alpha ? "true" : "false") + "," +
             (v.over_seeds->paired_by_seed ? "true" : "false") + "," +
             (v.over_seeds_holm < family.alpha
                  ? ""
                  : plan_cell(plan_of(v, family.alpha, family.tests.size()))) +
             ",";
    else
      row += ",,,,,,,," + csv_field(v.over_seeds_why_not);
    out.cells[v.test] = row;
  }
  return out;
}

}  // namespace fathom::cli
