#include "experiments/report_fork_verdicts.h"

#include <algorithm>
#include <cctype>

#include "base/metrics/statistics.h"
#include "base/util/progress.h"
#include "db/metric_presentation.h"
#include "db/run_status.h"
#include "experiments/text_table.h"

namespace fathom::experiments {
namespace {

// Up to this many tests take a few seconds at most: no progress bar.
constexpr size_t kQuietTests = 8;

std::string difference_with_interval(const PairedTestResult& r) {
  const PairedBootstrap& t = *r.test;
  return paired_score(r, t.difference, true) + " [" + paired_score(r, t.difference_low, true) +
         ", " + paired_score(r, t.difference_high, true) + "]";
}

// The finished run with the best final `metric` (its presentation's direction; lower where it
// has none), or -1: what a choice on validation takes.
int chosen_on_validation(const std::vector<db::RunRecord>& runs, const std::string& metric) {
  const bool higher = db::metric::higher_is_better(metric).value_or(false);
  int chosen = -1;
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto it = runs[i].final_metrics.find(metric);
    if (runs[i].status != db::status::kFinished || it == runs[i].final_metrics.end()) continue;
    const double best = chosen < 0 ? 0 : runs[static_cast<size_t>(chosen)].final_metrics.at(metric);
    if (chosen < 0 || (higher ? it->second > best : it->second < best))
      chosen = static_cast<int>(i);
  }
  return chosen;
}

// The block lengths the tests that ran took.
BlockRange blocks_of(const std::vector<PairedTestResult>& results) {
  std::vector<PairedBootstrap> tests;
  for (const auto& r : results)
    if (r.test) tests.push_back(*r.test);
  return block_range(tests);
}

}  // namespace

void fork_verdicts_section(std::ostream& out, const db::RunRecord& parent,
                           const std::vector<db::RunRecord>& runs, const PairedTester& test,
                           const std::string& select_by, bool by_configuration) {
  if (runs.empty() || !test) return;
  std::vector<PairedTestResult> results;
  std::vector<double> p;
  // ~0.23 s a run on newstest2014's 3,003 sentences (bench_fork_verdicts): a bar past a few.
  ProgressBar bar("paired tests against the parent", static_cast<int64_t>(runs.size()),
                  runs.size() > kQuietTests);
  for (const auto& run : runs) {
    results.push_back(test(parent, run));
    if (results.back().test) p.push_back(results.back().test->p);
    bar.update(static_cast<int64_t>(results.size()), "run " + std::to_string(run.id));
  }
  bar.finish("");
  const auto tested = std::find_if(results.begin(), results.end(),
                                   [](const PairedTestResult& r) { return r.test.has_value(); });
  const PairedTestResult* first = tested == results.end() ? nullptr : &*tested;
  out << "## Against the parent\n\n";
  if (!first) {
    out << "No paired test of " << paired_metric_words(results.front())
        << " against the parent: " << results.front().why_not << ".\n\n";
    return;
  }
  const std::vector<double> holm = holm_adjust(p);
  const int chosen = by_configuration ? -1 : chosen_on_validation(runs, select_by);
  out << "Each run's " << paired_metric_words(*first) << " against the parent's (run " << parent.id
      << ", " << paired_score(*first, first->test->baseline.score)
      << "), paired bootstrap resampling of "
      << resampled_segments(first->segments, first->segments_are, blocks_of(results)) << " ("
      << resampling_citation(first->test->samples, blocks_of(results))
      << "; [95 % interval of the difference]); p adjusted over the " << p.size() << " test"
      << (p.size() == 1 ? "" : "s") << " (Holm 1979), a verdict where it is below "
      << kForkVerdictAlpha << ".";
  if (chosen >= 0)
    out << " Marked *: the run a choice on validation takes ("
        << (db::metric::higher_is_better(select_by).value_or(false) ? "highest" : "lowest")
        << " final " << select_by
        << ") -- the rescue to report; one chosen by these test verdicts would overstate it.";
  if (by_configuration)
    out << " Runs that differ only in their seed are one configuration: a choice on validation "
           "takes a configuration (marked in \"The configurations over their seeds\" below), "
           "not the best of its seeds.";
  out << "\n\n";
  TextTable table;
  table.header = {"run",      "name",   paired_metric_words(*first), "difference [95 %]", "p",
                  "p (Holm)", "verdict"};
  std::vector<std::string> untested;
  for (size_t i = 0, tested = 0; i < runs.size(); ++i) {
    const std::string id = std::to_string(runs[i].id) + (static_cast<int>(i) == chosen ? " *" : "");
    if (!results[i].test) {
      table.rows.push_back({id, runs[i].name, "-", "-", "-", "-", "no test"});
      untested.push_back(results[i].why_not);
      continue;
    }
    const PairedTestResult& r = results[i];
    const double adjusted = holm[tested++];
    table.rows.push_back({id, runs[i].name, paired_score(r, r.test->system.score),
                          difference_with_interval(r), paired_p(r.test->p), paired_p(adjusted),
                          paired_verdict(r, adjusted, kForkVerdictAlpha)});
  }
  out << text_table_to_markdown(table) << "\n";
  for (const auto& why : untested) out << "No test: " << why << ".  \n";
  if (!untested.empty()) out << "\n";
}

std::string fork_test_sentence(const PairedTestResult& result) {
  if (!result.test)
    return "No paired test of " + paired_metric_words(result) +
           " against the parent: " + result.why_not + ".";
  const PairedBootstrap& t = *result.test;
  std::string metric = paired_metric_words(result);
  metric[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(metric[0])));
  const BlockRange blocks = block_range({t});
  return metric + " against the parent, paired bootstrap resampling of " +
         resampled_segments(result.segments, result.segments_are, blocks) + " (" +
         resampling_citation(t.samples, blocks) + "): " + paired_score(result, t.system.score) +
         " vs " + paired_score(result, t.baseline.score) + ", difference " +
         difference_with_interval(result) + ", " + p_in_words(t.p) + ".";
}

}  // namespace fathom::experiments
