#include "experiments/report_fork_seeds.h"

#include <algorithm>
#include <optional>

#include "base/config/seed_key.h"
#include "base/metrics/statistics.h"
#include "db/metric_presentation.h"
#include "db/run_status.h"
#include "experiments/report_fork_verdicts.h"
#include "experiments/text_table.h"

namespace fathom::experiments {
namespace {

// The mean final `metric` over a configuration's runs where every one finished with it.
std::optional<double> mean_final(const std::vector<db::RunRecord>& runs, const SeedGroup& group,
                                 const std::string& metric) {
  double sum = 0;
  for (size_t i : group.runs) {
    const auto it = runs[i].final_metrics.find(metric);
    if (runs[i].status != db::status::kFinished || it == runs[i].final_metrics.end())
      return std::nullopt;
    sum += it->second;
  }
  return sum / static_cast<double>(group.runs.size());
}

// The configuration of two seeds or more a choice on validation takes (the best mean
// `metric`, lower where it has no direction), or -1.
int configuration_chosen_on_validation(const std::vector<db::RunRecord>& runs,
                                       const std::vector<SeedGroup>& groups,
                                       const std::string& metric) {
  const bool higher = db::metric::higher_is_better(metric).value_or(false);
  int chosen = -1;
  double best = 0;
  for (size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].runs.size() < 2) continue;
    const auto mean = mean_final(runs, groups[g], metric);
    if (mean && (chosen < 0 || (higher ? *mean > best : *mean < best))) {
      chosen = static_cast<int>(g);
      best = *mean;
    }
  }
  return chosen;
}

// How a choice on validation picks a configuration: "the lowest mean final valid_loss over its
// seeds".
std::string chosen_by(const std::string& select_by) {
  return std::string("the ") +
         (db::metric::higher_is_better(select_by).value_or(false) ? "highest" : "lowest") +
         " mean final " + select_by + " over its seeds";
}

// A configuration's name in the report: its axes but the seed.
std::string group_name(const SeedGroup& group) {
  return group.label.empty() ? "(no axis)" : group.label;
}

// For an inconclusive configuration: about how many seeds would decide it at the level Holm's
// first step asks (alpha / m), or that the test set's shared error alone stands in the way.
std::string seeds_to_decide_text(const SeedPooledTest& t, size_t tests) {
  const SeedsToDecide plan =
      seeds_to_decide(t, kForkVerdictAlpha / static_cast<double>(std::max<size_t>(tests, 1)));
  if (plan.test_set_limits) return "none: a larger test set";
  if (plan.seeds > kMostSeedsPlanned) return "more than " + std::to_string(kMostSeedsPlanned);
  return plan.seeds > 0 ? "about " + std::to_string(plan.seeds) : "-";
}

// The paragraph before the table: what was tested, how, and what the marks say.
void describe_the_test(std::ostream& out, const PairedTestResult& first, size_t tests, bool marked,
                       const std::string& select_by, size_t window) {
  out << "Each configuration's runs, alike but for their seed, against the parent: the mean of "
         "their "
      << paired_metric_words(first)
      << " differences with its error from the seeds' spread and from the test set's error they "
         "all share (the parent's is one draw of it), a generalised t test (Tsui & Weerahandi "
         "1989; docs/methods.md \"A configuration over its seeds\"); p adjusted over the "
      << tests << " configuration" << (tests == 1 ? "" : "s")
      << " (Holm 1979), a verdict where it is below " << kForkVerdictAlpha
      << ". A verdict here is about the configuration, what a paper claims; the table above "
         "judges each seed's run alone. An inconclusive one gets the seeds that would decide it "
         "(80 % power at its difference, at alpha / m; the normal's plan), or \"a larger test "
         "set\" where the error every seed shares is too large for any number of them.";
  if (marked)
    out << " Marked *: the configuration a choice on validation takes (" << chosen_by(select_by)
        << ").";
  if (window > 0)
    out << " The text's neighbouring " << first.segments_are
        << " err alike: the shared error is their long-run variance over a flat-top window of "
        << window << " lags (docs/methods.md \"Neighbouring segments\").";
}

}  // namespace

std::vector<SeedGroup> seed_groups(const std::vector<std::map<std::string, std::string>>& axes) {
  std::vector<SeedGroup> groups;
  for (size_t i = 0; i < axes.size(); ++i) {
    std::string label;
    for (const auto& [key, value] : axes[i])
      if (!is_seed_key(key)) label += (label.empty() ? "" : ", ") + key + "=" + value;
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const SeedGroup& g) { return g.label == label; });
    if (it == groups.end()) it = groups.insert(groups.end(), SeedGroup{label, {}});
    it->runs.push_back(i);
  }
  return groups;
}

bool has_seed_group(const std::vector<std::map<std::string, std::string>>& axes) {
  for (const auto& g : seed_groups(axes))
    if (g.runs.size() >= 2) return true;
  return false;
}

void fork_seed_verdicts_section(std::ostream& out, const db::RunRecord& parent,
                                const std::vector<db::RunRecord>& runs,
                                const std::vector<std::map<std::string, std::string>>& axes,
                                const SeedPooledTester& test, const std::string& select_by) {
  if (!test || axes.size() != runs.size()) return;
  std::vector<SeedGroup> groups;
  for (auto& g : seed_groups(axes))
    if (g.runs.size() >= 2) groups.push_back(std::move(g));
  if (groups.empty()) return;
  std::vector<PairedTestResult> results;
  std::vector<double> p;
  for (const auto& g : groups) {
    std::vector<db::RunRecord> seeds;
    for (size_t i : g.runs) seeds.push_back(runs[i]);
    results.push_back(test(parent, seeds));
    if (results.back().pooled) p.push_back(results.back().pooled->p);
  }
  const PairedTestResult& first = results.front();
  out << "### The configurations over their seeds\n\n";
  const int chosen = configuration_chosen_on_validation(runs, groups, select_by);
  if (p.empty()) {
    out << "No test of a configuration's " << paired_metric_words(first)
        << " over its seeds: " << first.why_not << ".";
    if (chosen >= 0)
      out << " A choice on validation takes " << group_name(groups[static_cast<size_t>(chosen)])
          << " (" << chosen_by(select_by) << ").";
    out << "\n\n";
    return;
  }
  const std::vector<double> holm = holm_adjust(p);
  size_t window = 0;  // a language model's cut text: the flat-top window C was estimated over
  for (const auto& r : results)
    if (r.pooled) window = std::max(window, r.pooled->lag_window);
  describe_the_test(out, first, p.size(), chosen >= 0, select_by, window);
  out << "\n\n";
  TextTable table;
  table.header = {"configuration",
                  "seeds",
                  paired_metric_words(first) + " (mean)",
                  "difference [95 %]",
                  "seed sd",
                  "shared se",
                  "p",
                  "p (Holm)",
                  "verdict",
                  "seeds to decide"};
  std::vector<std::string> untested;
  for (size_t g = 0, tested = 0; g < groups.size(); ++g) {
    const PairedTestResult& r = results[g];
    const std::string label = group_name(groups[g]) + (static_cast<int>(g) == chosen ? " *" : "");
    const std::string seeds = std::to_string(groups[g].runs.size());
    if (!r.pooled) {
      table.rows.push_back({label, seeds, "-", "-", "-", "-", "-", "-", "no test", "-"});
      untested.push_back(groups[g].label + ": " + r.why_not);
      continue;
    }
    const SeedPooledTest& t = *r.pooled;
    const double adjusted = holm[tested++];
    const std::string verdict = paired_verdict(r, adjusted, kForkVerdictAlpha);
    table.rows.push_back({label, seeds, paired_score(r, t.system),
                          paired_score(r, t.difference, true) + " [" +
                              paired_score(r, t.low, true) + ", " + paired_score(r, t.high, true) +
                              "]",
                          paired_score(r, t.seed_sd), paired_score(r, t.shared_se), paired_p(t.p),
                          paired_p(adjusted), verdict,
                          verdict == "inconclusive" ? seeds_to_decide_text(t, p.size()) : "-"});
  }
  out << text_table_to_markdown(table) << "\n";
  for (const auto& why : untested) out << "No test of " << why << ".  \n";
  if (!untested.empty()) out << "\n";
}

}  // namespace fathom::experiments
