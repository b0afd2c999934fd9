// `fathom evaluate`: a run whose segment NLL files are gone (as a run finished before runs kept
// them) gets them back from its final model -- the best checkpoint, or the mean of kept ones --
// equal to what its own final evaluation wrote; a run that keeps them is left alone; a stored
// perplexity the model does not give back stores nothing and says which; an unfinished run is
// refused. Checked against the files the training itself wrote.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "base/metrics/perplexity_bootstrap.h"
#include "db/artifact_files.h"
#include "db/run_paths.h"
#include "db/store.h"
#include "tests/support/fathom_cli.h"
#include "tests/support/fathom_cli_test.h"

namespace test_evaluate_cli {
namespace fs = std::filesystem;
using fathom::ProgramResult;
using fathom::SegmentNll;

class EvaluateCli : public fathom::testing::FathomCliTest {
 protected:
  // The file the store's rows name for `kind` of `run`, "" when none.
  std::string stored(int64_t run, const std::string& kind) const {
    const auto store = fathom::db::Store::open(db(), fathom::db::OpenMode::ReadOnly);
    const auto paths = fathom::db::store_paths(db());
    return fathom::db::recorded_file(store.artifacts(run), paths.run_dir(run), kind);
  }
  // Forgets `run`'s segment files, rows and all, as a run from before they were kept.
  void forget_segments(int64_t run) {
    for (const char* kind : {"valid_nll", "test_nll"}) fs::remove(stored(run, kind));
    fathom::db::Store::open(db()).remove_artifacts(run, {"valid_nll", "test_nll"});
  }
};

void expect_same_segments(const std::vector<SegmentNll>& again,
                          const std::vector<SegmentNll>& trained, const std::string& what) {
  ASSERT_EQ(again.size(), trained.size()) << what;
  for (size_t i = 0; i < trained.size(); ++i) {
    EXPECT_EQ(again[i].tokens, trained[i].tokens) << what << " segment " << i;
    EXPECT_NEAR(again[i].nll, trained[i].nll, 1e-6 * trained[i].nll) << what << " segment " << i;
  }
}

TEST_F(EvaluateCli, ARunWithoutSegmentFilesGetsThoseItsFinalModelGives) {
  std::ofstream(dir_ / "tiny.yaml") << fathom::testing::tiny_config_yaml(
      "tiny", "{lr: 0.005, warmup: 10, max_updates: 60, valid_every: 20, log_every: 10}");
  const std::string config = (dir_ / "tiny.yaml").string();
  ASSERT_EQ(fathom({"train", config, "--no-progress"}).exit_code, 0);
  // The mean of the two newest kept checkpoints (final_model "mean of 2 checkpoints").
  ASSERT_EQ(fathom({"train", config, "--no-progress", "--set", "train.keep_checkpoint_every=20",
                    "--set", "eval.average_checkpoints=2"})
                .exit_code,
            0);
  std::vector<std::vector<SegmentNll>> trained;
  for (int64_t run : {1, 2})
    for (const char* kind : {"valid_nll", "test_nll"})
      trained.push_back(fathom::read_segment_nll_file(stored(run, kind)));

  // Both keep their files: nothing to do.
  const ProgramResult kept = fathom({"evaluate", "1", "2"});
  ASSERT_EQ(kept.exit_code, 0) << kept.err;
  EXPECT_NE(kept.out.find("run 1 tiny: already keeps valid.nll and test.nll"), std::string::npos)
      << kept.out;

  forget_segments(1);
  forget_segments(2);
  const ProgramResult again = fathom({"evaluate", "1", "2"});
  ASSERT_EQ(again.exit_code, 0) << again.err << again.out;
  EXPECT_NE(again.out.find("run 1 tiny (best): test.nll, 10 segments"), std::string::npos)
      << again.out;
  EXPECT_NE(again.out.find("run 2 tiny (average): test.nll"), std::string::npos) << again.out;
  // Each loss pass shows its progress (stderr is not a terminal here: a plain line).
  for (const char* pass : {"valid loss", "test loss"})
    EXPECT_NE(again.err.find(pass), std::string::npos) << pass << "\n" << again.err;
  forget_segments(1);
  const ProgramResult quiet = fathom({"evaluate", "1", "--no-progress"});
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.err.find("loss"), std::string::npos) << quiet.err;
  size_t i = 0;
  for (int64_t run : {1, 2})
    for (const char* kind : {"valid_nll", "test_nll"})
      expect_same_segments(fathom::read_segment_nll_file(stored(run, kind)), trained[i++],
                           "run " + std::to_string(run) + " " + kind);
  // And compare tests them again.
  const ProgramResult compared = fathom({"compare", "1", "2", "--samples", "200"});
  EXPECT_NE(compared.out.find("Test perplexity against run 1 tiny, paired bootstrap"),
            std::string::npos)
      << compared.out;
}

TEST_F(EvaluateCli, AStoredPerplexityTheModelDoesNotGiveBackStoresNothing) {
  std::ofstream(dir_ / "tiny.yaml") << fathom::testing::tiny_config_yaml(
      "tiny", "{lr: 0.005, warmup: 10, max_updates: 40, valid_every: 20, log_every: 10}");
  ASSERT_EQ(fathom({"train", (dir_ / "tiny.yaml").string(), "--no-progress"}).exit_code, 0);
  forget_segments(1);
  {
    auto store = fathom::db::Store::open(db());
    const double ppl = store.find_run("1")->final_metrics.at("test_ppl");
    store.set_final_metric(1, "test_ppl", ppl * 1.01);
    fathom::db::NewRun queued;
    queued.name = "later";
    queued.config_yaml = fathom::testing::read_text(dir_ / "tiny.yaml");
    queued.config_json = "{}";
    store.create_run(queued);
  }
  const ProgramResult refused = fathom({"evaluate", "1", "2"});
  EXPECT_EQ(refused.exit_code, 1) << refused.err;
  EXPECT_NE(refused.out.find("run 1 tiny: test_ppl evaluated again is"), std::string::npos)
      << refused.out;
  EXPECT_NE(refused.out.find("nothing stored"), std::string::npos) << refused.out;
  EXPECT_NE(refused.out.find("run 2 later: is queued"), std::string::npos) << refused.out;
  EXPECT_EQ(stored(1, "valid_nll"), "");  // not the one split that agreed either
  EXPECT_EQ(stored(1, "test_nll"), "");
}

}  // namespace test_evaluate_cli
