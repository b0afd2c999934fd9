// `fathom compare RUN RUN [RUN...] [--samples N] [--seed S] [--tolerance T] [--baseline-runs K |
// --over-seeds | --at BUDGET]`: what differs between runs -- the settings whose values are not the
// same in every run's config, their final metrics, where each run's curves first part from the
// first run's (experiments/ run_agreement.h) -- and whether each run's test BLEU differs from the
// first run's by more than the choice of test sentences explains: paired bootstrap resampling
// (Koehn 2004; sacreBLEU's
// --paired-bs) of the hypotheses each run stored, against the test references of their common
// data -- and the same for test perplexity, from the NLL of every test segment each run stored
// (a language model's only test). `--baseline-runs K` reads the first K runs as one
// configuration's seeds and the rest as another's, `--over-seeds` splits them by their settings
// but the seed, and either tests the two over their seeds and the test set at once
// (cli/compare_over_seeds.h). `--at compute=1e15` gives each run's metrics as they stood at
// that budget instead of at its end (cli/compare_at_budget.h), and no paired test.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "base/config/config_diff.h"
#include "base/metrics/bleu_bootstrap.h"
#include "base/metrics/bleu_segments.h"
#include "base/metrics/tokenized_segments.h"
#include "base/util/error.h"
#include "cli/commands.h"
#include "cli/compare_at_budget.h"
#include "cli/compare_over_seeds.h"
#include "cli/paired_tests.h"
#include "cli/stored_hypotheses.h"
#include "db/fork_tags.h"
#include "db/store.h"
#include "experiments/computed_with.h"
#include "experiments/run_agreement.h"
#include "experiments/text_table.h"
#include "experiments/value_at_budget.h"

namespace fathom::cli {
namespace {

struct CompareArgs {
  std::vector<std::string> runs;
  int samples = 1000;
  uint64_t seed = 12345;
  double tolerance = 0;  // relative, for the curves
  // > 0: the first this many runs are one configuration's seeds, the rest another's, and the
  // two are tested over their seeds and the test set (base/metrics/seed_pooled_test.h).
  int baseline_runs = 0;
  // The same split by the runs' settings but the seed, where they are two configurations.
  bool over_seeds = false, pair_seeds = false;
  std::string at;  // --at: the metrics as they stood at this budget (cli/compare_at_budget.h)
};

std::string general(double v) {  // 5888, 2.4464, 0.0168
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string fixed(double v, int digits = 2) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// What compare() found: the runs, the settings that differ, what they were computed with where
// that differs, the final metrics every run has, and the paired BLEU and perplexity tests of each
// run against the first (none when `paired.why_not`, `nll.why_not` say).
struct Comparison {
  std::vector<db::RunRecord> runs;
  std::map<std::string, std::vector<std::string>> differing;
  std::map<std::string, std::vector<std::string>> computed_with;
  std::set<std::string> metrics;
  std::vector<experiments::RunAgreement> curves;  // run i + 1 against the first
  PairedInput paired;
  std::vector<PairedBootstrap> tests;
  std::vector<std::optional<db::ForkOrigin>> forks;  // each run's, where it is a fork
  NllInput nll;
  std::vector<PairedBootstrap> perplexity_tests;
  bool language_models = false;  // the first run's data.task is lm: its segments are sequences
};

// What run `b`'s curve shares with run `a`'s by construction -- a fork's points up to its fork
// point are its parent's, copied (core/train/fork.h) -- or "" when nothing: agreement there is
// no finding.
std::string shared_by_forking(const db::RunRecord& a, const std::optional<db::ForkOrigin>& a_fork,
                              const db::RunRecord& b, const std::optional<db::ForkOrigin>& b_fork) {
  const std::string ta = "#" + std::to_string(a.id), tb = "#" + std::to_string(b.id);
  auto upto = [](int64_t step) { return " at update " + std::to_string(step) + ": "; };
  if (b_fork && b_fork->parent == a.id)
    return "a fork of " + ta + upto(b_fork->step) + "its points up to there are " + ta + "'s";
  if (a_fork && a_fork->parent == b.id)
    return ta + " is its fork" + upto(a_fork->step) + ta + "'s points up to there are " + tb + "'s";
  if (a_fork && b_fork && a_fork->parent == b_fork->parent && a_fork->step == b_fork->step)
    return "both fork #" + std::to_string(a_fork->parent) + upto(a_fork->step) +
           "their points up to there are its";
  return "";
}

nlohmann::json comparison_json(const Comparison& c) {
  const auto& [runs, differing, computed_with, metrics, curves, paired, tests, forks, nll,
               perplexity_tests, language_models] = c;
  nlohmann::json j;
  j["runs"] = nlohmann::json::array();
  for (size_t i = 0; i < runs.size(); ++i) {
    j["runs"].push_back({{"id", runs[i].id}, {"name", runs[i].name}});
    if (forks[i])
      j["runs"].back()["fork_of"] = {{"run", forks[i]->parent}, {"update", forks[i]->step}};
  }
  j["differing"] = differing;
  j["computed_differently"] = computed_with;
  for (const auto& m : metrics) {
    j["final_metrics"][m] = nlohmann::json::array();
    for (const auto& r : runs) j["final_metrics"][m].push_back(r.final_metrics.at(m));
  }
  for (size_t i = 0; i < curves.size(); ++i)
    j["curves"]["versus_" + std::to_string(runs[i + 1].id)] =
        experiments::agreement_json(curves[i]);
  const auto put_tests = [&](const char* key, const char* score, const std::string& why_not,
                             const std::vector<PairedBootstrap>& found) {
    if (!why_not.empty()) j[key] = {{"skipped", why_not}};
    for (size_t i = 0; i < found.size(); ++i)
      j[key]["versus_" + std::to_string(runs[i + 1].id)] = {
          {"baseline",
           {{score, found[i].baseline.score},
            {"mean", found[i].baseline.mean},
            {"ci95", found[i].baseline.ci}}},
          {"system",
           {{score, found[i].system.score},
            {"mean", found[i].system.mean},
            {"ci95", found[i].system.ci}}},
          {"difference", found[i].difference},
          {"difference_ci95", {found[i].difference_low, found[i].difference_high}},
          {"p", found[i].p},
          {"samples", found[i].samples},
          {"block_length", found[i].block_length},
          {"studentised", found[i].studentised},
          {"score_block_length", found[i].score_block_length}};
  };
  put_tests("paired_bootstrap", "bleu", paired.why_not, tests);
  put_tests("paired_bootstrap_perplexity", "perplexity", nll.why_not, perplexity_tests);
  return j;
}

// --at's reading: the budget as read, each metric's values there (null: none), the notes.
nlohmann::json at_budget_json(const MetricsAtBudget& at) {
  nlohmann::json j = {{"at", experiments::budget_setting(at.budget)},
                      {"metrics", nlohmann::json::object()},
                      {"notes", at.notes}};
  for (size_t m = 0; m < at.metrics.size(); ++m) {
    auto& values = j["metrics"][at.metrics[m]] = nlohmann::json::array();
    for (const auto& v : at.values[m]) values.push_back(v ? nlohmann::json(*v) : nlohmann::json());
  }
  return j;
}

// One paired test's lines: each run's test score against the first run's, or why there is none.
void print_tests(const std::string& score, const std::string& why_not, size_t segments,
                 const std::vector<PairedBootstrap>& found, int digits, const Comparison& c,
                 const CompareArgs& a, const std::string& segments_are = "sentences") {
  if (!why_not.empty()) {
    std::cout << "No paired " << score << " test: " << why_not << ".\n";
    return;
  }
  const experiments::BlockRange blocks = experiments::block_range(found);
  std::cout << "Test " << score << " against " << run_label(c.runs.front())
            << ", paired bootstrap resampling of "
            << experiments::resampled_segments(segments, segments_are, blocks) << " ("
            << experiments::resampling_citation(a.samples, blocks)
            << "; [95 % interval of the draws]):\n\n";
  const auto interval = [digits](const BootstrapScore& b) {
    return fixed(b.score, digits) + " [" + fixed(b.mean - b.ci, digits) + ", " +
           fixed(b.mean + b.ci, digits) + "]";
  };
  for (size_t i = 0; i < found.size(); ++i)
    std::cout << "- " << run_label(c.runs[i + 1]) << ": " << interval(found[i].system) << " vs "
              << interval(found[i].baseline) << ": p = " << fixed(found[i].p, 4)
              << (blocks.shortest == blocks.longest
                      ? ""
                      : ", blocks of " + std::to_string(found[i].block_length))
              << "\n";
}

void print_comparison_text(const Comparison& c, const CompareArgs& a,
                           const std::optional<MetricsAtBudget>& at_budget) {
  const auto& [runs, differing, computed_with, metrics, curves, paired, tests, forks, nll,
               perplexity_tests, language_models] = c;
  // The runs by name once, then by id in the tables' columns: a sweep's run names are as long
  // as its axes, and a column each made the tables too wide to read.
  std::cout << "Runs:\n\n";
  for (const auto& r : runs) std::cout << "- #" << r.id << " " << r.name << "\n";
  experiments::TextTable settings;
  settings.header = {"setting"};
  for (const auto& r : runs) settings.header.push_back("#" + std::to_string(r.id));
  for (const auto& [key, values] : differing) {
    if (key == "name") continue;  // listed above
    settings.rows.push_back({key});
    settings.rows.back().insert(settings.rows.back().end(), values.begin(), values.end());
  }
  std::cout << "\nSettings that differ (" << settings.rows.size() << "):\n\n"
            << experiments::text_table_to_markdown(settings) << "\n";
  if (!computed_with.empty()) {
    experiments::TextTable computed;
    computed.header = settings.header;
    computed.header[0] = "computed with";
    for (const auto& [key, values] : computed_with) {
      computed.rows.push_back({key});
      computed.rows.back().insert(computed.rows.back().end(), values.begin(), values.end());
    }
    std::cout << "Computed differently -- equal settings give other numbers on other BLAS "
                 "kernels, code, devices, LibTorch versions or thread counts, so a difference "
                 "below can be that alone:\n\n"
              << experiments::text_table_to_markdown(computed) << "\n";
  }
  if (at_budget) {
    experiments::TextTable at;
    at.header = settings.header;
    at.header[0] = "metric";
    for (size_t m = 0; m < at_budget->metrics.size(); ++m) {
      at.rows.push_back({at_budget->metrics[m]});
      for (size_t r = 0; r < runs.size(); ++r) {
        const std::optional<double>& v = at_budget->values[m][r];
        const std::string& diverged = at_budget->diverged[r];
        at.rows.back().push_back(!diverged.empty() ? diverged : v ? general(*v) : "-");
      }
    }
    std::cout << "Metrics at " << experiments::budget_text(at_budget->budget)
              << " (each run's last point inside it):\n\n"
              << experiments::text_table_to_markdown(at);
    for (const auto& n : at_budget->notes) std::cout << "- " << n << "\n";
    std::cout << "\n";
  } else {
    experiments::TextTable finals;
    finals.header = settings.header;
    finals.header[0] = "final metric";
    for (const auto& m : metrics) {
      finals.rows.push_back({m});
      for (const auto& r : runs) finals.rows.back().push_back(general(r.final_metrics.at(m)));
    }
    std::cout << "Final metrics:\n\n" << experiments::text_table_to_markdown(finals) << "\n";
  }
  // Runs of other settings part at once: said, so "first recorded difference" is no news.
  const bool same_settings = std::all_of(differing.begin(), differing.end(),
                                         [](const auto& entry) { return entry.first == "name"; });
  std::cout << "Curves against " << run_label(runs.front()) << " (every update both recorded, "
            << "timings and system metrics left out"
            << (same_settings ? "" : "; the settings differ, so they are not expected to agree")
            << "):\n\n";
  const std::string first = "#" + std::to_string(runs.front().id);
  for (size_t i = 0; i < curves.size(); ++i) {
    const std::string shared =
        shared_by_forking(runs.front(), forks.front(), runs[i + 1], forks[i + 1]);
    std::cout << "- " << run_label(runs[i + 1]) << (shared.empty() ? "" : " (" + shared + ")")
              << ": "
              << experiments::describe_agreement(curves[i], first,
                                                 "#" + std::to_string(runs[i + 1].id))
              << "\n";
  }
  std::cout << "\n";
  print_tests("BLEU", paired.why_not, paired.references.size(), tests, 2, c, a);
  std::cout << "\n";
  print_tests("perplexity", nll.why_not, nll.segments.empty() ? 0 : nll.segments.front().size(),
              perplexity_tests, 3, c, a, c.language_models ? "sequences" : "sentences");
}

// The paired tests of each run's test BLEU and test perplexity against the first run's, from
// the outputs each stored; none at a budget (`at_budget`): those are the final models'.
void paired_tests(Comparison& c, const db::Store& store, const GlobalOptions& global,
                  const CompareArgs& a, bool at_budget) {
  auto& [runs, differing, computed_with, metrics, curves, paired, tests, forks, nll,
         perplexity_tests, language_models] = c;
  const std::string final_outputs =
      "the test outputs each run stored are its final model's, not its model at the budget";
  paired = at_budget ? PairedInput{} : paired_input(store, resolve_store_paths(global), runs);
  if (at_budget) paired.why_not = final_outputs;
  if (paired.why_not.empty()) {
    // The references tokenised, and the first run counted, once for every run against it.
    const TokenizedSegments references = tokenized_references(paired.references);
    const SegmentBleuStats baseline(paired.hypotheses.front(), references);
    for (size_t i = 1; i < runs.size(); ++i)
      tests.push_back(paired_bootstrap_bleu(
          baseline, SegmentBleuStats(paired.hypotheses[i], references), a.samples, a.seed));
  }
  if (at_budget)
    nll.why_not = final_outputs;
  else
    nll = segment_nll_input(store, resolve_store_paths(global), runs);
  for (size_t i = 1; nll.why_not.empty() && i < runs.size(); ++i) try {
      perplexity_tests.push_back(
          paired_bootstrap_perplexity(nll.segments.front(), nll.segments[i], a.samples, a.seed,
                                      evaluation_segments(runs.front()).order));
    } catch (const std::invalid_argument& e) {  // other tokenisations
      perplexity_tests.clear();
      nll.why_not = run_label(runs[i]) + " against " + run_label(runs.front()) + ": " + e.what();
    }
}

void compare(const CompareArgs& a, const GlobalOptions& global) {
  if (a.runs.size() < 2) throw InputError("fathom compare", 0, "RUN", "give two or more runs");
  const std::optional<experiments::Budget> at = experiments::budget_option(a.at, "fathom compare");
  if (at && (a.baseline_runs > 0 || a.over_seeds))
    throw InputError("fathom compare", 0, "--at",
                     "tests over the seeds and the test set use the final models' test outputs, "
                     "which have no value at a budget: give --at alone");
  const auto store = db::Store::open(resolve_db_path(global), db::OpenMode::ReadOnly);
  Comparison c;
  auto& [runs, differing, computed_with, metrics, curves, paired, tests, forks, nll,
         perplexity_tests, language_models] = c;
  std::vector<nlohmann::json> configs;
  for (const auto& name : a.runs) {
    auto r = store.find_run(name);
    if (!r) throw InputError(store.path(), 0, "RUN", "no run '" + name + "' in the store");
    configs.push_back(nlohmann::json::parse(r->config_json));
    forks.push_back(db::fork_origin(store.tags(r->id)));
    runs.push_back(*r);
  }
  differing = differing_keys(configs);
  language_models =
      configs.front().value("data", nlohmann::json::object()).value("task", "") == "lm";
  std::vector<experiments::ComputedWith> computed;
  for (const auto& r : runs) computed.push_back(experiments::computed_with(r, store.tags(r.id)));
  computed_with = experiments::computed_differently(computed);

  // Final metrics every run has.
  for (const auto& [name, value] : runs.front().final_metrics) metrics.insert(name);
  for (const auto& r : runs)
    for (auto it = metrics.begin(); it != metrics.end();)
      it = r.final_metrics.count(*it) ? std::next(it) : metrics.erase(it);

  std::vector<int64_t> others;
  for (size_t i = 1; i < runs.size(); ++i) others.push_back(runs[i].id);
  curves = experiments::compare_stored_trajectories(store, runs.front().id, others, a.tolerance);

  std::optional<MetricsAtBudget> at_budget;
  if (at) at_budget = metrics_at_budget(store, runs, metrics, *at);
  paired_tests(c, store, global, a, at.has_value());

  std::optional<OverSeeds> seeds;
  if (a.pair_seeds && a.baseline_runs == 0 && !a.over_seeds)
    throw InputError("fathom compare", 0, "--pair-seeds",
                     "pairs the two configurations of --baseline-runs or --over-seeds; give one");
  if (a.baseline_runs > 0) {
    if (static_cast<size_t>(a.baseline_runs) >= runs.size() ||
        (a.baseline_runs < 2 && runs.size() - static_cast<size_t>(a.baseline_runs) < 2))
      throw InputError("fathom compare", 0, "--baseline-runs",
                       "the first " + std::to_string(a.baseline_runs) + " of " +
                           std::to_string(runs.size()) +
                           " runs leave no second configuration, or neither has two seeds");
    std::vector<size_t> first, rest;
    for (size_t i = 0; i < runs.size(); ++i)
      (i < static_cast<size_t>(a.baseline_runs) ? first : rest).push_back(i);
    seeds = over_seeds(runs, paired, nll, {first, rest}, a.samples, a.seed, a.pair_seeds);
  } else if (a.over_seeds) {
    seeds = over_seeds(runs, paired, nll, configurations_but_seed(differing, runs.size()),
                       a.samples, a.seed, a.pair_seeds);
  }
  if (global.json) {
    nlohmann::json j = comparison_json(c);
    if (seeds) j["over_seeds"] = over_seeds_json(*seeds, runs);
    if (at_budget) j["at_budget"] = at_budget_json(*at_budget);
    std::cout << j.dump(2) << "\n";
  } else {
    print_comparison_text(c, a, at_budget);
    if (seeds) print_over_seeds(std::cout, *seeds, runs);
  }
}

}  // namespace

void add_compare_command(CLI::App& app, GlobalOptions& global) {
  auto a = std::make_shared<CompareArgs>();
  CLI::App* cmd = app.add_subcommand(
      "compare",
      "What differs between runs (settings, final metrics) and whether their test BLEU and test "
      "perplexity differ significantly from the first run's (paired bootstrap)");
  cmd->add_option("runs", a->runs, "two or more runs (ids or names); the first is the baseline")
      ->required();
  cmd->add_option("--samples", a->samples, "bootstrap draws (default 1000, as sacreBLEU)")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--seed", a->seed, "seed of the draws (default 12345, as sacreBLEU)");
  cmd->add_option("--tolerance", a->tolerance,
                  "relative difference up to which two curve values count as equal (default 0: "
                  "the same number)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--baseline-runs", a->baseline_runs,
                  "the first K runs are seeds of one configuration, the rest of another: also "
                  "test the two over their seeds and the test set at once")
      ->check(CLI::Range(1, 1000000));
  cmd->add_flag("--over-seeds", a->over_seeds,
                "where the runs are two configurations (their settings but the seed), test "
                "them over their seeds and the test set at once; the first run's is the baseline")
      ->excludes("--baseline-runs");
  cmd->add_option("--at", a->at,
                  "each run's metrics as they stood at an equal budget, its last point at or "
                  "before it: compute=FLOPS, tokens=N, update=N, or AXIS=least (the least the "
                  "finished runs reached) -- models of unequal cost compared at equal compute; "
                  "no paired test (the test outputs are the final models')");
  cmd->add_flag("--pair-seeds", a->pair_seeds,
                "with --baseline-runs or --over-seeds: pair the two configurations' runs by "
                "their train.seed and test the seeds' differences (each seed gives both the same "
                "initialisation and data order); choose it before seeing the results");
  cmd->callback([a, &global] { compare(*a, global); });
}

}  // namespace fathom::cli
