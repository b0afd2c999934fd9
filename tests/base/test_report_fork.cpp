// `fathom report` of forks (experiments/report_fork.h): a fork's report names the run and
// update it left and the settings it changed, with its final metrics beside its parent's and
// their differences (hand-computed here); a forked run's report lists its forks; the curves
// draw them side by side -- the parent, or the newest kForksDrawn forks.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "base/metrics/bleu_bootstrap.h"
#include "base/metrics/perplexity_bootstrap.h"
#include "db/fork_tags.h"
#include "db/store.h"
#include "experiments/paired_test.h"
#include "experiments/report.h"
#include "experiments/report_fork.h"
#include "experiments/report_fork_verdicts.h"
#include "tests/support/temp_dir.h"

namespace test_report_fork {
using namespace fathom;

int64_t add_run(db::Store& store, const std::string& name,
                const std::map<std::string, double>& finals,
                std::optional<int64_t> diverged_at = std::nullopt) {
  db::NewRun n;
  n.name = name;
  n.config_yaml = "name: " + name + "\n";
  const int64_t id = store.create_run(n);
  store.write_metrics(id, {{0, "valid_loss", 4.0, 0.0}, {100, "valid_loss", 3.0, 0.0}});
  for (const auto& [metric, value] : finals) store.set_final_metric(id, metric, value);
  if (diverged_at)
    store.finish_run(id, "diverged", "loss is NaN", *diverged_at);
  else
    store.finish_run(id, "finished");
  return id;
}

int64_t add_fork(db::Store& store, int64_t parent, int64_t at, const std::string& settings,
                 const std::map<std::string, double>& finals,
                 std::optional<int64_t> diverged_at = std::nullopt) {
  const int64_t id = add_run(store, "fork" + std::to_string(at), finals, diverged_at);
  store.set_tag(id, db::kForkedFromTag, std::to_string(parent));
  store.set_tag(id, db::kForkedAtTag, std::to_string(at));
  if (!settings.empty()) store.set_tag(id, db::kForkSettingsTag, settings);
  return id;
}

// The report of `target`, and the runs each curve figure was asked to draw (all alike) and to
// draw beside them as references.
std::string report(const db::Store& store, const std::string& target, const std::string& dir,
                   std::vector<int64_t>* drawn, std::vector<int64_t>* references = nullptr) {
  experiments::ReportOptions options;
  options.out_dir = dir;
  options.metrics = {"test_bleu", "valid_loss"};
  options.render_curves = [drawn, references](const experiments::CurvesRequest& r) {
    *drawn = r.runs;
    if (references) *references = r.references;
    return r.file_stem + ".png";
  };
  std::ifstream in(experiments::write_report(store, target, options));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(ReportFork, AForkIsReportedBesideItsParent) {
  const fathom::testing::TempDir scratch;
  auto store = db::Store::open(scratch.file("runs.db"));
  const int64_t parent =
      add_run(store, "base", {{"test_bleu", 30.0}, {"valid_loss", 2.0}, {"params", 1000}});
  const int64_t fork = add_fork(store, parent, 200, "train.lr=0.004; train.clip_norm=1",
                                {{"test_bleu", 32.5},
                                 {"valid_loss", 1.75},
                                 {"params", 1000},
                                 {"train_time_s", 12.0}});  // the parent has none
  const std::string p = std::to_string(parent), f = std::to_string(fork);
  std::vector<int64_t> drawn;
  const std::string text = report(store, f, scratch.file("fork"), &drawn);
  EXPECT_NE(text.find("## Fork of run " + p + "\n\nThis run continues run " + p +
                      " (`base`) from its checkpoint at update 200 (`fathom train --fork " + p +
                      " --from 200`), with `--set train.lr=0.004 --set train.clip_norm=1`"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("`fathom compare " + p + " " + f + "`"), std::string::npos) << text;
  // Each row's numbers with the decimals of its largest (4 significant digits); the difference
  // signed: 32.5 - 30 = +2.5, 1.75 - 2 = -0.25, 1000 - 1000 = 0.
  EXPECT_NE(text.find("| final metric | #" + f + " (fork) | #" + p + " (parent) | fork - parent |"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("| test\\_bleu | 32.50 | 30.00 | +2.50 |"), std::string::npos) << text;
  EXPECT_NE(text.find("| valid\\_loss | 1.750 | 2.000 | -0.250 |"), std::string::npos) << text;
  EXPECT_NE(text.find("| params | 1000 | 1000 | 0 |"), std::string::npos) << text;
  EXPECT_EQ(text.find("train\\_time\\_s"), std::string::npos) << "a metric the parent lacks";
  EXPECT_EQ(drawn, (std::vector<int64_t>{fork, parent}));

  // The parent's report lists it; a fork without settings says none changed.
  const int64_t same = add_fork(store, parent, 100, "", {{"test_bleu", 30.0}});
  const std::string parents = report(store, p, scratch.file("parent"), &drawn);
  EXPECT_NE(parents.find("## Forks of this run\n\n2 runs continue this one"), std::string::npos)
      << parents;
  EXPECT_NE(parents.find("| run | name | from update | changed | status | test\\_bleu | "
                         "valid\\_loss |"),
            std::string::npos)
      << parents;
  EXPECT_NE(parents.find("| " + f +
                         " | fork200 | 200 | train.lr=0.004; train.clip\\_norm=1 | finished | "
                         "32.50 | 1.750 |"),
            std::string::npos)
      << parents;
  EXPECT_NE(
      parents.find("| " + std::to_string(same) + " | fork100 | 100 | - | finished | 30.00 | - |"),
      std::string::npos)
      << parents;
  EXPECT_EQ(drawn, (std::vector<int64_t>{parent, fork, same}));
  const std::string sames = report(store, std::to_string(same), scratch.file("same"), &drawn);
  EXPECT_NE(sames.find("from its checkpoint at update 100 (`fathom train --fork " + p +
                       " --from 100`), with no setting changed;"),
            std::string::npos)
      << sames;
}

TEST(ReportFork, ManyForksDrawTheNewestAndAGoneParentIsSaid) {
  const fathom::testing::TempDir scratch;
  auto store = db::Store::open(scratch.file("runs.db"));
  const int64_t parent = add_run(store, "base", {{"test_bleu", 30.0}});
  std::vector<int64_t> forks;
  for (int i = 0; i < 8; ++i)
    forks.push_back(add_fork(store, parent, 100 * (1 + i % 2), "train.lr=" + std::to_string(i),
                             {{"test_bleu", 30.0 + i}},
                             i == 3 ? std::optional<int64_t>(150) : std::nullopt));
  const int64_t unrelated = add_run(store, "other", {{"test_bleu", 1.0}});
  std::vector<int64_t> drawn;
  const std::string text = report(store, std::to_string(parent), scratch.file("parent"), &drawn);
  EXPECT_NE(text.find("8 runs continue this one from one of its checkpoints with changed "
                      "settings (`fathom train --fork`); the curves below draw the newest " +
                      std::to_string(experiments::kForksDrawn) + " beside it."),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("| " + std::to_string(forks[3]) +
                      " | fork200 | 200 | train.lr=3 | "
                      "diverged@150 |"),
            std::string::npos)
      << text;
  std::vector<int64_t> newest = {parent};
  newest.insert(newest.end(), forks.end() - experiments::kForksDrawn, forks.end());
  EXPECT_EQ(drawn, newest);

  // A run that is neither a fork nor forked has no such section and is drawn alone.
  const std::string alone = report(store, std::to_string(unrelated), scratch.file("alone"), &drawn);
  EXPECT_EQ(alone.find("## Fork"), std::string::npos) << alone;
  EXPECT_EQ(drawn, std::vector<int64_t>{unrelated});

  // A fork whose parent was deleted says so, and is drawn alone.
  store.delete_run(parent);
  const std::string orphan =
      report(store, std::to_string(forks[0]), scratch.file("orphan"), &drawn);
  EXPECT_NE(orphan.find("; its curves up to update 100 are the parent's. Run " +
                        std::to_string(parent) + " is no longer in the store.\n"),
            std::string::npos)
      << orphan;
  EXPECT_EQ(orphan.find("(parent)"), std::string::npos) << orphan;
  EXPECT_EQ(drawn, std::vector<int64_t>{forks[0]});
}

// A fork sweep's report names the parent and its result, what the sweep's runs are measured
// against; a sweep with a run that is no such fork has no such note.
TEST(ReportFork, AForkSweepsReportNamesTheParentsResult) {
  const fathom::testing::TempDir scratch;
  auto store = db::Store::open(scratch.file("runs.db"));
  const int64_t parent =
      add_run(store, "base", {{"test_bleu", 30.0}, {"valid_loss", 2.0}, {"params", 5.0}}, 350);
  auto sweep_run = [&](const std::string& sweep, const std::string& lr, bool fork) {
    db::NewRun n;
    n.name = sweep + "/lr=" + lr;
    n.sweep = sweep;
    const int64_t id = store.create_run(n);
    store.write_metrics(id, {{400, "valid_loss", 1.9, 0.0}});
    store.set_final_metric(id, "test_bleu", 31.0);
    store.finish_run(id, "finished");
    store.set_tag(id, "axis.train.lr", lr);
    store.set_tag(id, "sweep.axes", "train.lr");
    if (fork) {
      store.set_tag(id, db::kForkedFromTag, std::to_string(parent));
      store.set_tag(id, db::kForkedAtTag, "300");
    }
  };
  sweep_run("rescue", "0.001", true);
  sweep_run("rescue", "0.0005", true);
  sweep_run("mixed", "0.001", true);
  sweep_run("mixed", "0.0005", false);
  std::vector<int64_t> drawn, references;
  const std::string text = report(store, "rescue", scratch.file("rescue"), &drawn, &references);
  // The report's metrics (test_bleu, valid_loss) the parent has, 4 significant digits.
  EXPECT_NE(text.find("Every run is a fork of run " + std::to_string(parent) +
                      " (`base`) from its checkpoint at update 300 (a fork sweep): the parent "
                      "(diverged at update 350) ended with test_bleu 30.00, valid_loss 2.000 -- "
                      "what its runs are measured against; the curves draw it.\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(drawn.size(), 2u);
  EXPECT_EQ(references, std::vector<int64_t>{parent}) << "the parent beside the rescues";
  const std::string mixed = report(store, "mixed", scratch.file("mixed"), &drawn, &references);
  EXPECT_EQ(mixed.find("Every run is a fork"), std::string::npos) << mixed;
  EXPECT_TRUE(references.empty());
}

// A fork sweep's "Against the parent": each fork's hypotheses against the parent's through the
// real paired bootstrap. A fork that translates as the parent does differs by nothing (p = 1);
// one that translates every sentence right beats a parent that gets none right in every draw
// (p = 1/1001 = 0.0010, Holm over the two tests 0.0020: "better"); one without hypotheses is
// said with its reason. The run validation chooses (lowest final valid_loss) is marked.
TEST(ReportFork, AForkSweepsRunsAreTestedAgainstTheParentWithHolm) {
  const fathom::testing::TempDir scratch;
  auto store = db::Store::open(scratch.file("runs.db"));
  const int64_t parent = add_run(store, "base", {{"valid_loss", 2.0}});
  const int64_t same = add_fork(store, parent, 300, "", {{"valid_loss", 2.0}});
  const int64_t right = add_fork(store, parent, 300, "train.lr=0.001", {{"valid_loss", 1.5}});
  const int64_t none = add_fork(store, parent, 300, "train.lr=0.01", {{"valid_loss", 1.0}}, 320);
  std::vector<std::string> references, wrong;
  for (int i = 0; i < 40; ++i) {
    references.push_back("the cat " + std::to_string(i) + " sat on the mat today");
    wrong.push_back("a dog ran far away from " + std::to_string(1000 + i) + " home");
  }
  const std::map<int64_t, std::vector<std::string>> hypotheses = {
      {parent, wrong}, {same, wrong}, {right, references}};
  const experiments::PairedTester test = [&](const db::RunRecord& baseline,
                                             const db::RunRecord& system) {
    experiments::PairedTestResult result;
    result.segments = references.size();
    if (!hypotheses.count(system.id)) {
      result.why_not = "run " + std::to_string(system.id) + " has no stored test hypotheses";
      return result;
    }
    result.test =
        paired_bootstrap_bleu(hypotheses.at(baseline.id), hypotheses.at(system.id), references);
    return result;
  };
  std::ostringstream out;
  const auto runs = std::vector<db::RunRecord>{*store.find_run(std::to_string(same)),
                                               *store.find_run(std::to_string(right)),
                                               *store.find_run(std::to_string(none))};
  experiments::fork_verdicts_section(out, *store.find_run(std::to_string(parent)), runs, test,
                                     "valid_loss");
  const std::string text = out.str();
  EXPECT_NE(text.find("paired bootstrap resampling of 40 sentences (1000 draws"), std::string::npos)
      << text;
  EXPECT_NE(text.find("p adjusted over the 2 tests (Holm 1979)"), std::string::npos) << text;
  EXPECT_NE(text.find("| " + std::to_string(same) +
                      " | fork300 | 0.00 | +0.00 [+0.00, +0.00] | "
                      "1.0000 | 1.0000 | inconclusive |"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("| " + std::to_string(right) + " \\* | fork300 | 100.00 | +100.00"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("| 0.0010 | 0.0020 | better |"), std::string::npos) << text;
  EXPECT_NE(text.find("| " + std::to_string(none) + " | fork300 | - | - | - | - | no test |"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("No test: run " + std::to_string(none) + " has no stored test hypotheses."),
            std::string::npos)
      << text;
  // The diverged run's lower valid_loss is no choice: the finished run with the lowest is.
  EXPECT_NE(text.find("(lowest final valid_loss)"), std::string::npos) << text;
  // Runs that are seeds of one configuration: no run is marked, the choice is left to the
  // configurations.
  std::ostringstream by_configuration;
  experiments::fork_verdicts_section(by_configuration, *store.find_run(std::to_string(parent)),
                                     runs, test, "valid_loss", true);
  EXPECT_EQ(by_configuration.str().find("\\*"), std::string::npos) << by_configuration.str();
  EXPECT_NE(by_configuration.str().find("a choice on validation takes a configuration"),
            std::string::npos)
      << by_configuration.str();
  // A fork's own report says its one test (every draw scores 100 against 0).
  const db::RunRecord base = *store.find_run(std::to_string(parent));
  EXPECT_EQ(experiments::fork_test_sentence(test(base, runs[1])),
            "Test BLEU against the parent, paired bootstrap resampling of 40 sentences (1000 "
            "draws, Koehn 2004): 100.00 vs 0.00, difference +100.00 [+100.00, +100.00], p = "
            "0.0010.");
  EXPECT_EQ(experiments::fork_test_sentence(test(base, runs[2])),
            "No paired test of test BLEU against the parent: run " + std::to_string(none) +
                " has no stored test hypotheses.");
}

// A language model's test: test perplexity of the runs' `segments` (by run id), `samples` draws.
experiments::PairedTester perplexity_tester(
    const std::map<int64_t, std::vector<SegmentNll>>& segments, int samples, SegmentOrder order) {
  return [segments, samples, order](const db::RunRecord& baseline, const db::RunRecord& system) {
    experiments::PairedTestResult result;
    result.metric = "test_ppl";
    result.segments_are = "sequences";
    result.segments = segments.at(baseline.id).size();
    result.test = paired_bootstrap_perplexity(segments.at(baseline.id), segments.at(system.id),
                                              samples, 12345, order);
    return result;
  };
}

// A language model's forks are tested on test perplexity: lower is better, three decimals,
// the sequences of its text -- the section says so and the verdicts follow the direction.
TEST(ReportFork, ALanguageModelsForksAreJudgedOnTestPerplexityLowerBetter) {
  const fathom::testing::TempDir scratch;
  auto store = db::Store::open(scratch.file("runs.db"));
  const int64_t parent = add_run(store, "lm", {{"valid_loss", 3.0}});
  const int64_t lower = add_fork(store, parent, 100, "train.lr=0.001", {{"valid_loss", 2.9}});
  const int64_t higher = add_fork(store, parent, 100, "train.lr=0.01", {{"valid_loss", 3.1}});
  std::vector<SegmentNll> base;
  for (int i = 0; i < 30; ++i) base.push_back({60.0 + i % 5, 20});
  const auto shifted = [&](double nats_a_token) {
    auto out = base;
    for (auto& s : out) s.nll += nats_a_token * static_cast<double>(s.tokens);
    return out;
  };
  const std::map<int64_t, std::vector<SegmentNll>> segments = {
      {parent, base}, {lower, shifted(-0.1)}, {higher, shifted(0.1)}};
  const experiments::PairedTester test =
      perplexity_tester(segments, 1000, SegmentOrder::independent);
  std::ostringstream out;
  const auto runs = std::vector<db::RunRecord>{*store.find_run(std::to_string(lower)),
                                               *store.find_run(std::to_string(higher))};
  experiments::fork_verdicts_section(out, *store.find_run(std::to_string(parent)), runs, test,
                                     "valid_loss");
  const std::string text = out.str();
  // exp(62 / 20) for the parent: every sequence averages 3.1 nats a token.
  EXPECT_NE(
      text.find("Each run's test perplexity against the parent's (run " + std::to_string(parent) +
                ", 22.198), paired bootstrap resampling of 30 "
                "sequences"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("| run | name | test perplexity |"), std::string::npos) << text;
  // exp(3.0) - exp(3.1) = -2.112 for the lower one: better; the higher one is worse.
  EXPECT_NE(text.find("| " + std::to_string(lower) + " \\* | fork100 | 20.086 | -2.112"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("| better |"), std::string::npos) << text;
  EXPECT_NE(text.find("| worse |"), std::string::npos) << text;
  EXPECT_EQ(experiments::fork_test_sentence(test(*store.find_run(std::to_string(parent)), runs[0]))
                .rfind("Test perplexity against the parent, paired bootstrap resampling of 30 "
                       "sequences (1000 draws, Koehn 2004): 20.086 vs 22.198, difference -2.112",
                       0),
            0u);
}

// Tests whose draws took circular blocks (a language model's text cut into blocks) say so, with
// the shortest and longest block their tests chose; one fork's sentence names its own.
TEST(ReportFork, TestsDrawnInCircularBlocksSayHowLong) {
  const fathom::testing::TempDir scratch;
  auto store = db::Store::open(scratch.file("runs.db"));
  const int64_t parent = add_run(store, "lm", {{"valid_loss", 3.0}});
  const int64_t near = add_fork(store, parent, 100, "train.lr=0.001", {{"valid_loss", 2.9}});
  const int64_t far = add_fork(store, parent, 100, "train.lr=0.01", {{"valid_loss", 3.1}});
  // Each fork's own error persists over neighbouring blocks, the far one's for longer.
  std::vector<SegmentNll> base;
  for (int i = 0; i < 400; ++i) base.push_back({60.0, 20});
  const auto persisting = [&](double phi, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> e(0, 1);
    auto out = base;
    double own = 0;
    for (auto& s : out) s.nll += (own = phi * own + e(rng));
    return out;
  };
  const std::map<int64_t, std::vector<SegmentNll>> segments = {
      {parent, base}, {near, persisting(0.5, 1)}, {far, persisting(0.9, 2)}};
  const experiments::PairedTester test = perplexity_tester(segments, 200, SegmentOrder::serial);
  const db::RunRecord parent_run = *store.find_run(std::to_string(parent));
  const auto runs = std::vector<db::RunRecord>{*store.find_run(std::to_string(near)),
                                               *store.find_run(std::to_string(far))};
  const size_t shorter = test(parent_run, runs[0]).test->block_length,
               longer = test(parent_run, runs[1]).test->block_length;
  ASSERT_LT(shorter, longer);
  ASSERT_GT(shorter, 1u);
  std::ostringstream out;
  experiments::fork_verdicts_section(out, parent_run, runs, test, "valid_loss");
  EXPECT_NE(out.str().find("resampling of 400 sequences in circular blocks of " +
                           std::to_string(shorter) + "-" + std::to_string(longer) +
                           " neighbours (200 draws, Koehn 2004; block length by Politis & "
                           "White 2004, studentised as Goetze & Kuensch 1996;"),
            std::string::npos)
      << out.str();
  EXPECT_NE(experiments::fork_test_sentence(test(parent_run, runs[1]))
                .find("resampling of 400 sequences in circular blocks of " +
                      std::to_string(longer) + " neighbours"),
            std::string::npos);
}

// A p-value four decimals cannot show (the generalised t test's can be 1e-9) reads as an
// inequality, never "0.0000"; in a sentence "p < 0.0001", else "p = 0.0123".
TEST(PairedP, BelowFourDecimalsItIsAnInequality) {
  EXPECT_EQ(experiments::paired_p(0.01234), "0.0123");
  EXPECT_EQ(experiments::paired_p(0.0001), "0.0001");
  EXPECT_EQ(experiments::paired_p(0.0000999), "< 0.0001");
  EXPECT_EQ(experiments::paired_p(0), "< 0.0001");
  EXPECT_EQ(experiments::p_in_words(0.5), "p = 0.5000");
  EXPECT_EQ(experiments::p_in_words(3e-9), "p < 0.0001");
}

}  // namespace test_report_fork
