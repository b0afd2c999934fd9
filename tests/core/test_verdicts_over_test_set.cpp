// `fathom export verdicts --paired-bootstrap` over a family of two tests (test BLEU and test
// perplexity of one rate against another, two seeds each): the test over seeds and sentences
// is Holm-adjusted over both -- checked against Holm worked by hand from the two raw p's the
// library gives on the runs' stored files -- and the CSV carries the same numbers as columns;
// `--pair-seeds` tests the seeds' differences instead (base/metrics/seed_pooled_test.h), in
// `fathom compare --over-seeds` too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "base/config/config_io.h"
#include "base/metrics/bleu_bootstrap.h"
#include "base/metrics/perplexity_bootstrap.h"
#include "base/metrics/text_lines.h"
#include "core/data/dataset.h"
#include "db/store.h"
#include "tests/support/fathom_cli.h"
#include "tests/support/fathom_cli_test.h"

namespace test_verdicts_over_test_set {
using fathom::ProgramResult;

class VerdictsOverTestSet : public fathom::testing::FathomCliTest {
 protected:
  void SetUp() override {
    FathomCliTest::SetUp();
    if (HasFatalFailure()) return;
    std::ofstream(dir_ / "tiny.yaml") << fathom::testing::tiny_config_yaml(
        "tiny", "{lr: 0.005, warmup: 10, max_updates: 60, valid_every: 30, log_every: 10}");
    std::ofstream(dir_ / "sweep.yaml")
        << "name: v\nbase: tiny.yaml\ngrid:\n  train.lr: [0.005, 0.001]\nseeds: [1, 2]\n";
  }
  // "lr/seed" -> the artifact of `kind` each run stored, read by `read`.
  template <typename T, typename Read>
  std::map<std::string, T> stored(const std::string& kind, Read read) {
    auto store =
        fathom::db::Store::open((dir_ / "runs.db").string(), fathom::db::OpenMode::ReadOnly);
    std::map<std::string, T> out;
    for (const auto& r : store.list_runs("v")) {
      const auto tags = store.tags(r.id);
      for (const auto& a : store.artifacts(r.id))
        if (a.kind == kind)
          out[tags.at("axis.train.lr") + "/" + tags.at("axis.train.seed")] = read(a.path);
    }
    return out;
  }
};

std::vector<std::string> csv_line(const std::string& line) {  // no quoted commas here
  std::vector<std::string> fields;
  std::stringstream in(line);
  for (std::string f; std::getline(in, f, ',');) fields.push_back(f);
  if (!line.empty() && line.back() == ',') fields.push_back("");
  return fields;
}

TEST_F(VerdictsOverTestSet, TheTestOverSeedsIsHolmAdjustedOverTheFamilyAndExportedAsCsv) {
  const ProgramResult sweep =
      fathom({"sweep", (dir_ / "sweep.yaml").string(), "--jobs", "1", "--no-progress"});
  ASSERT_EQ(sweep.exit_code, 0) << sweep.err;
  const auto hyps = stored<std::vector<std::string>>(
      "hypotheses", [](const std::string& p) { return fathom::read_text_lines(p); });
  const auto nll = stored<std::vector<fathom::SegmentNll>>(
      "test_nll", [](const std::string& p) { return fathom::read_segment_nll_file(p); });
  ASSERT_EQ(hyps.size(), 4u);
  ASSERT_EQ(nll.size(), 4u);
  const auto data =
      fathom::load_dataset(fathom::load_config_file((dir_ / "tiny.yaml").string()).data,
                           (dir_ / "runs.cache").string(), "");
  const std::vector<std::string> refs(data.test_target.begin(), data.test_target.begin() + 5);
  const auto bleu =
      fathom::seed_arms_bleu({hyps.at("0.001/1"), hyps.at("0.001/2")},
                             {hyps.at("0.005/1"), hyps.at("0.005/2")}, refs, 200, 12345);
  const auto ppl = fathom::seed_arms_perplexity({nll.at("0.001/1"), nll.at("0.001/2")},
                                                {nll.at("0.005/1"), nll.at("0.005/2")});
  // Holm over m = 2 by hand: the smaller p times 2, the larger no less than that.
  const double first = std::min(1.0, 2 * std::min(bleu.p, ppl.p));
  const double second = std::max(first, std::max(bleu.p, ppl.p));
  const double bleu_holm = bleu.p <= ppl.p ? first : second;
  const double ppl_holm = bleu.p <= ppl.p ? second : first;

  const std::vector<std::string> args = {"export",
                                         "verdicts",
                                         "--sweep",
                                         "v",
                                         "--rows",
                                         "train.lr",
                                         "--metrics",
                                         "test_bleu,test_ppl",
                                         "--versus",
                                         "0.005",
                                         "--paired-bootstrap",
                                         "--samples",
                                         "200"};
  const ProgramResult md = fathom(args);
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_NE(md.out.find("Holm family: 2 tests"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("| p (Holm, 2) | verdict |"), std::string::npos) << md.out;
  char cells[160];
  std::snprintf(cells, sizeof cells, "| 2/2 | [%+.2f, %+.2f] | %.4f | %.4f | ", bleu.low, bleu.high,
                bleu.p, bleu_holm);
  EXPECT_NE(md.out.find(cells), std::string::npos) << cells << "\n" << md.out;
  std::snprintf(cells, sizeof cells, "| 2/2 | [%+.2f, %+.2f] | %.4f | %.4f | ", ppl.low, ppl.high,
                ppl.p, ppl_holm);
  EXPECT_NE(md.out.find(cells), std::string::npos) << cells << "\n" << md.out;

  std::vector<std::string> csv_args = args;
  csv_args.insert(csv_args.end(), {"--format", "csv"});
  const ProgramResult csv = fathom(csv_args);
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  std::stringstream lines(csv.out);
  std::string header_line;
  std::getline(lines, header_line);
  const std::vector<std::string> header = csv_line(header_line);
  const auto column = [&](const std::string& name) {
    const auto at = std::find(header.begin(), header.end(), name);
    EXPECT_NE(at, header.end()) << name << " in " << header_line;
    return static_cast<size_t>(at - header.begin());
  };
  int rows = 0;
  for (std::string line; std::getline(lines, line);) {
    const std::vector<std::string> f = csv_line(line);
    ASSERT_EQ(f.size(), header.size()) << line;
    const bool is_bleu = f[column("metric")] == "\"test_bleu\"";
    const auto& expected = is_bleu ? bleu : ppl;
    EXPECT_NEAR(std::stod(f[column("over_seeds_p")]), expected.p, 1e-5 * expected.p + 1e-12);
    EXPECT_NEAR(std::stod(f[column("over_seeds_p_holm")]), is_bleu ? bleu_holm : ppl_holm, 1e-5);
    EXPECT_NEAR(std::stod(f[column("over_seeds_difference")]), expected.difference,
                1e-5 * std::abs(expected.difference) + 1e-9);
    EXPECT_EQ(f[column("seeds_row")], "2");
    EXPECT_EQ(f[column("seeds_paired")], "2");
    const bool decided = (is_bleu ? bleu_holm : ppl_holm) < 0.05;
    EXPECT_EQ(f[column("over_seeds_decided")], decided ? "true" : "false");
    // An inconclusive test says what would decide it: seeds per arm, or "test set".
    EXPECT_EQ(f[column("over_seeds_seeds_needed")].empty(), decided) << line;
    ++rows;
  }
  EXPECT_EQ(rows, 2);

  // --pair-seeds: the same tests on the seeds' differences, lr=0.001 against lr=0.005 seed by
  // seed, as the library gives them on the same files.
  const auto paired_bleu =
      fathom::seed_paired_bleu({hyps.at("0.001/1"), hyps.at("0.001/2")},
                               {hyps.at("0.005/1"), hyps.at("0.005/2")}, refs, 200, 12345);
  const auto paired_ppl = fathom::seed_paired_perplexity({nll.at("0.001/1"), nll.at("0.001/2")},
                                                         {nll.at("0.005/1"), nll.at("0.005/2")});
  std::vector<std::string> paired_args = args;
  paired_args.push_back("--pair-seeds");
  const ProgramResult paired = fathom(paired_args);
  ASSERT_EQ(paired.exit_code, 0) << paired.err;
  for (const auto* t : {&paired_bleu, &paired_ppl}) {
    std::snprintf(cells, sizeof cells, "| 2 paired | [%+.2f, %+.2f] | %.4f | ", t->low, t->high,
                  t->p);
    EXPECT_NE(paired.out.find(cells), std::string::npos) << cells << "\n" << paired.out;
  }
  EXPECT_NE(paired.out.find("paired by seed (`--pair-seeds`)"), std::string::npos) << paired.out;
  // Without --paired-bootstrap there is nothing to pair: refused.
  const ProgramResult alone =
      fathom({"export", "verdicts", "--sweep", "v", "--rows", "train.lr", "--metrics", "test_bleu",
              "--versus", "0.005", "--pair-seeds"});
  EXPECT_NE(alone.exit_code, 0);
  EXPECT_NE(alone.err.find("--paired-bootstrap"), std::string::npos) << alone.err;
}

// `fathom compare --over-seeds --pair-seeds`: the runs, given in any order, pair by their
// train.seed; the test is the library's on the seeds' differences. A seed without a partner is
// said, not dropped.
TEST_F(VerdictsOverTestSet, CompareOverSeedsPairsTheRunsBySeed) {
  const ProgramResult sweep =
      fathom({"sweep", (dir_ / "sweep.yaml").string(), "--jobs", "1", "--no-progress"});
  ASSERT_EQ(sweep.exit_code, 0) << sweep.err;
  const auto hyps = stored<std::vector<std::string>>(
      "hypotheses", [](const std::string& p) { return fathom::read_text_lines(p); });
  auto store = fathom::db::Store::open((dir_ / "runs.db").string(), fathom::db::OpenMode::ReadOnly);
  std::map<std::string, std::string> id;  // "lr/seed" -> run id
  for (const auto& r : store.list_runs("v")) {
    const auto tags = store.tags(r.id);
    id[tags.at("axis.train.lr") + "/" + tags.at("axis.train.seed")] = std::to_string(r.id);
  }
  const auto data =
      fathom::load_dataset(fathom::load_config_file((dir_ / "tiny.yaml").string()).data,
                           (dir_ / "runs.cache").string(), "");
  const std::vector<std::string> refs(data.test_target.begin(), data.test_target.begin() + 5);
  const auto expected =
      fathom::seed_paired_bleu({hyps.at("0.001/1"), hyps.at("0.001/2")},
                               {hyps.at("0.005/1"), hyps.at("0.005/2")}, refs, 200, 12345);
  // Seed 2 of one rate before seed 1: pairing goes by the seed, not the order given.
  const ProgramResult paired =
      fathom({"compare", id.at("0.005/2"), id.at("0.005/1"), id.at("0.001/1"), id.at("0.001/2"),
              "--over-seeds", "--pair-seeds", "--samples", "200"});
  ASSERT_EQ(paired.exit_code, 0) << paired.err;
  EXPECT_NE(paired.out.find("paired by seed in that order"), std::string::npos) << paired.out;
  char text[96];
  std::snprintf(text, sizeof text, "[%+.2f, %+.2f], p = %.4f", expected.low, expected.high,
                expected.p);
  EXPECT_NE(paired.out.find(text), std::string::npos) << text << "\n" << paired.out;
  const ProgramResult unpartnered =
      fathom({"compare", id.at("0.005/1"), id.at("0.005/2"), id.at("0.001/1"), "--baseline-runs",
              "2", "--pair-seeds"});
  EXPECT_NE(unpartnered.out.find("the runs do not pair by seed: run " + id.at("0.005/2")),
            std::string::npos)
      << unpartnered.out;
}

}  // namespace test_verdicts_over_test_set
