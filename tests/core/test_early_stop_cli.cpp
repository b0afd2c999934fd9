// train.patience (core/train/early_stop.h): training ends once that many validations in a row
// have not lowered the best validation loss. Where it ends is recomputed here from the curve of
// the same config trained without it -- patience changes when a run stops, never what it
// computes -- and a run stopped and resumed must end where the uninterrupted one did. A
// resume into the same patience is refused; one with train.patience=0 trains on.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/util/process.h"
#include "db/final_model_tag.h"
#include "db/metric_names.h"
#include "db/store.h"
#include "tests/support/fathom_cli.h"
#include "tests/support/fathom_cli_test.h"

namespace test_early_stop_cli {
namespace fs = std::filesystem;
using fathom::ProgramResult;

constexpr int kPatience = 2, kValidEvery = 5, kMaxUpdates = 400;

// `extra`: more keys of the section, each after ", ".
std::string train_section(int patience, int max_updates, double min_delta,
                          const std::string& extra = "") {
  return "{lr: 0.005, warmup: 10, max_updates: " + std::to_string(max_updates) +
         ", valid_every: " + std::to_string(kValidEvery) +
         ", log_every: 5, threads: 1, patience: " + std::to_string(patience) +
         ", patience_min_delta: " + std::to_string(min_delta) + extra + "}";
}
// train.best_metric valid_bleu over all 20 validation sentences of the tiny config.
const std::string kOnBleu = ", valid_bleu: 20, best_metric: valid_bleu";

// Where the rule stops on a curve of validation losses (update -> loss, the one at
// initialization left out), by hand: the best so far (checkpoint_best), and the validations
// since the last loss below the previous such one by more than min_delta. A curve where higher
// is better (valid_bleu) is given negated.
struct ExpectedStop {
  int64_t update = 0, best_update = 0, improved_update = 0;
  double best = INFINITY;
};
ExpectedStop expected_stop(const std::map<int64_t, double>& valid, int patience,
                           double min_delta = 0) {
  ExpectedStop e;
  double improved = INFINITY;
  int since = 0;
  for (const auto& [update, loss] : valid) {
    if (update == 0) continue;
    if (loss < e.best) {
      e.best = loss;
      e.best_update = update;
    }
    if (loss < improved - min_delta) {
      improved = loss;
      e.improved_update = update;
      since = 0;
    } else if (++since == patience) {
      e.update = update;
      return e;
    }
  }
  return e;  // never: update 0
}

class EarlyStopCli : public fathom::testing::FathomCliTest {
 protected:
  void SetUp() override {
    FathomCliTest::SetUp();
    if (HasFatalFailure()) return;
  }
  // Trains a config of that patience and length (on `nproc` processes); the new run's id.
  int64_t train(const std::string& name, int patience, int max_updates, int nproc = 1,
                double min_delta = 0, const std::string& extra = "") {
    const fs::path config = dir_ / (name + ".yaml");
    std::string section = train_section(patience, max_updates, min_delta, extra);
    if (nproc > 1) section.insert(1, "update_tokens: 600, ");  // a share of batches per rank
    std::ofstream(config) << fathom::testing::tiny_config_yaml(name, section);
    const ProgramResult r =
        fathom({"train", config.string(), "--nproc", std::to_string(nproc), "--no-progress"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return ++runs_;
  }
  // `sign` -1: the curve negated (higher is better there).
  std::map<int64_t, double> curve(int64_t run, const std::string& metric, double sign = 1) const {
    std::map<int64_t, double> out;
    const auto store = fathom::db::Store::open(db(), fathom::db::OpenMode::ReadOnly);
    for (const auto& p : store.metric_series(run, metric)) out[p.step] = sign * p.value;
    return out;
  }
  fathom::db::RunRecord record(int64_t run) const {
    return *fathom::db::Store::open(db(), fathom::db::OpenMode::ReadOnly)
                .find_run(std::to_string(run));
  }
  std::map<std::string, std::string> tags(int64_t run) const {
    return fathom::db::Store::open(db(), fathom::db::OpenMode::ReadOnly).tags(run);
  }
  // The run's STATUS in `fathom runs`, and (--json) its early_stop: the same or absent.
  std::string listed_status(int64_t run) {
    const ProgramResult table = fathom({"runs"});
    const ProgramResult json = fathom({"--json", "runs"});
    EXPECT_EQ(table.exit_code, 0) << table.err;
    EXPECT_EQ(json.exit_code, 0) << json.err;
    const auto tag = tags(run);
    for (const auto& listed : nlohmann::json::parse(json.out))
      if (listed.at("id") == run) {
        EXPECT_EQ(listed.contains("early_stop"),
                  tag.count("early_stop") && tag.at("early_stop").rfind("trained on", 0) != 0);
      }
    // "  7  early  finished (early stop)  225  ...": the text after the name, up to the updates.
    const std::string row_start = std::to_string(run) + "  ";
    for (size_t at = table.out.find(row_start); at != std::string::npos;
         at = table.out.find(row_start, at + 1)) {
      if (at != 0 && table.out[at - 1] != '\n' && table.out[at - 1] != ' ') continue;
      const size_t end = table.out.find('\n', at);
      const std::string line = table.out.substr(at, end - at);
      for (const std::string status : {"finished (early stop)", "finished", "running"})
        if (line.find("  " + status + "  ") != std::string::npos) return status;
    }
    return "(not listed)";
  }
  int64_t runs_ = 0;
};

TEST_F(EarlyStopCli, TrainingEndsPatienceValidationsAfterTheBestAsTheFullCurveSays) {
  const int64_t full = train("full", 0, kMaxUpdates);
  const int64_t early = train("early", kPatience, kMaxUpdates);
  const auto full_valid = curve(full, fathom::db::metric::kValidLoss);
  EXPECT_EQ(full_valid.rbegin()->first, kMaxUpdates);  // patience 0: to the end
  const ExpectedStop stop = expected_stop(full_valid, kPatience);
  ASSERT_GT(stop.update, 0) << "the full run's curve never stalls for " << kPatience;
  ASSERT_LT(stop.update, kMaxUpdates);

  const auto run = record(early);
  EXPECT_EQ(run.status, "finished");
  EXPECT_EQ(run.updates, stop.update);
  // The stopped run is the full run's prefix: the same values, none after the stop.
  const auto early_valid = curve(early, fathom::db::metric::kValidLoss);
  EXPECT_EQ(early_valid.rbegin()->first, stop.update);
  for (const auto& [update, loss] : early_valid) EXPECT_EQ(loss, full_valid.at(update)) << update;
  EXPECT_EQ(curve(early, fathom::db::metric::kTrainLoss).rbegin()->first, stop.update);
  // Its final evaluation is of checkpoint_best, the best update's model.
  const auto t = tags(early);
  const auto final_model = fathom::db::parse_final_model_tag(t.at(fathom::db::kFinalModelTag));
  EXPECT_EQ(final_model.kind, fathom::db::FinalModel::Kind::BestCheckpoint);
  EXPECT_EQ(final_model.update, stop.best_update);
  EXPECT_DOUBLE_EQ(run.final_metrics.at(fathom::db::metric::kValidLoss), stop.best);
  EXPECT_EQ(t.at("early_stop")
                .rfind("update " + std::to_string(stop.update) + ": 2 validations " +
                           "since update " + std::to_string(stop.best_update),
                       0),
            0u)
      << t.at("early_stop");
  EXPECT_FALSE(tags(full).count("early_stop"));
}

TEST_F(EarlyStopCli, AResumedRunStopsWhereTheUninterruptedOneDid) {
  const int64_t straight = train("straight", kPatience, kMaxUpdates);
  const ExpectedStop stop =
      expected_stop(curve(straight, fathom::db::metric::kValidLoss), kPatience);
  ASSERT_EQ(record(straight).updates, stop.update);
  // Ended one validation after the best (one of the patience spent), then trained on: the
  // count must come back from the checkpoint, or the resumed run would stop a validation late.
  const int64_t halted =
      train("halted", kPatience, static_cast<int>(stop.best_update) + kValidEvery);
  const ProgramResult resumed =
      fathom({"train", "--resume", std::to_string(halted), "--set",
              "train.max_updates=" + std::to_string(kMaxUpdates), "--no-progress"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(record(halted).updates, stop.update);
  EXPECT_EQ(curve(halted, fathom::db::metric::kValidLoss),
            curve(straight, fathom::db::metric::kValidLoss));
}

TEST_F(EarlyStopCli, AResumeIntoTheSamePatienceIsRefusedAndPatienceZeroTrainsOn) {
  const int64_t run = train("early", kPatience, kMaxUpdates);
  const int64_t stopped_at = record(run).updates;
  ASSERT_LT(stopped_at, kMaxUpdates);
  const ProgramResult again = fathom({"train", "--resume", std::to_string(run), "--no-progress"});
  EXPECT_EQ(again.exit_code, 2) << again.err;
  EXPECT_NE(again.err.find("stopped early"), std::string::npos) << again.err;
  EXPECT_NE(again.err.find("--set train.patience=0"), std::string::npos) << again.err;
  EXPECT_EQ(record(run).updates, stopped_at);  // refused before anything was touched
  EXPECT_EQ(listed_status(run), "finished (early stop)");
  const std::string shown = fathom({"show", std::to_string(run)}).out;
  EXPECT_NE(shown.find("finished (early stop: train.patience"), std::string::npos) << shown;

  const ProgramResult on = fathom(
      {"train", "--resume", std::to_string(run), "--set", "train.patience=0", "--no-progress"});
  ASSERT_EQ(on.exit_code, 0) << on.err;
  EXPECT_EQ(record(run).updates, kMaxUpdates);
  const auto t = tags(run);
  EXPECT_EQ(t.at("early_stop").rfind("trained on from update " + std::to_string(stopped_at), 0), 0u)
      << t.at("early_stop");
  EXPECT_TRUE(t.count("config.changed_at." + std::to_string(stopped_at)));
  EXPECT_EQ(listed_status(run), "finished");  // trained on: no longer ended by the stop
  EXPECT_EQ(fathom({"show", std::to_string(run)}).out.find("(early stop"), std::string::npos);
}

// With train.patience_min_delta a validation restarts the count only when its loss is below the
// last such one's by more than it: the run stops where the hand-computed rule says on the
// patience-0 curve -- never later than without it -- while checkpoint_best, which the final
// evaluation measures, is still the lowest loss up to the stop.
TEST_F(EarlyStopCli, AMinDeltaStopsAtTheFirstStallOfThatSizeOnTheFullCurve) {
  constexpr double kMinDelta = 0.02;
  const int64_t full = train("full", 0, kMaxUpdates);
  const int64_t early = train("delta", kPatience, kMaxUpdates, 1, kMinDelta);
  const auto full_valid = curve(full, fathom::db::metric::kValidLoss);
  const ExpectedStop stop = expected_stop(full_valid, kPatience, kMinDelta);
  const ExpectedStop plain = expected_stop(full_valid, kPatience);
  ASSERT_GT(stop.update, 0);
  ASSERT_GT(plain.update, 0);
  EXPECT_LE(stop.update, plain.update);
  EXPECT_NE(stop.update, plain.update) << "min_delta " << kMinDelta << " decides nothing here";

  const auto run = record(early);
  EXPECT_EQ(run.updates, stop.update);
  const auto t = tags(early);
  EXPECT_EQ(fathom::db::parse_final_model_tag(t.at(fathom::db::kFinalModelTag)).update,
            stop.best_update);
  EXPECT_DOUBLE_EQ(run.final_metrics.at(fathom::db::metric::kValidLoss), stop.best);
  const std::string& why = t.at("early_stop");
  EXPECT_EQ(why.rfind("update " + std::to_string(stop.update) + ": 2 validations since update " +
                          std::to_string(stop.improved_update),
                      0),
            0u)
      << why;
  EXPECT_NE(why.find("train.patience_min_delta 0.02"), std::string::npos) << why;
  EXPECT_EQ(listed_status(early), "finished (early stop)");
  EXPECT_EQ(listed_status(full), "finished");
}

// The ranks of a data-parallel run each count the validations from their shared loss sums: they
// stop at one update (a rank training on would leave the others waiting in the all-reduce), the
// one the rule gives on the run's own curve. Not necessarily one process's: summing in another
// order moves the losses by ~1e-4 over a few hundred updates, and near a plateau that can turn
// a validation's "no lower" into "lower" (docs/methods.md, early stopping).
TEST_F(EarlyStopCli, DataParallelRanksStopTogetherWhereTheirCurveSays) {
  const int64_t run = train("ranks", kPatience, kMaxUpdates, /*nproc=*/2);
  const ExpectedStop stop = expected_stop(curve(run, fathom::db::metric::kValidLoss), kPatience);
  ASSERT_GT(stop.update, 0);
  EXPECT_EQ(record(run).status, "finished");
  EXPECT_EQ(record(run).updates, stop.update);
  EXPECT_EQ(curve(run, fathom::db::metric::kTrainLoss).rbegin()->first, stop.update);
}

// train.best_metric: valid_bleu: checkpoint_best is the highest valid_bleu and patience counts
// validations without a higher one (by more than min_delta, in BLEU points) -- recomputed by
// hand from the patience-0 run's BLEU curve, of which the stopped run is the prefix.
TEST_F(EarlyStopCli, OnValidBleuTheHighestIsKeptAndPatienceCountsFromIt) {
  constexpr int kBleuPatience = 6;
  constexpr double kPoints = 0.1;
  const int64_t full = train("full", 0, kMaxUpdates, 1, kPoints, kOnBleu);
  const int64_t early = train("early", kBleuPatience, kMaxUpdates, 1, kPoints, kOnBleu);
  const auto full_bleu = curve(full, fathom::db::metric::kValidBleu, -1);
  ASSERT_EQ(full_bleu.size(), kMaxUpdates / kValidEvery);  // none at initialization
  const ExpectedStop stop = expected_stop(full_bleu, kBleuPatience, kPoints);
  ASSERT_GT(stop.update, 0) << "the BLEU curve never stalls for " << kBleuPatience;

  // The full run evaluates its highest-BLEU model (the first of equals).
  const ExpectedStop whole = expected_stop(full_bleu, 0);
  const auto full_tags = tags(full);
  const auto full_model =
      fathom::db::parse_final_model_tag(full_tags.at(fathom::db::kFinalModelTag));
  EXPECT_EQ(full_model.update, whole.best_update);
  EXPECT_EQ(full_model.best_metric, "valid_bleu");  // "checkpoint_best by valid_bleu, ..."
  EXPECT_FALSE(full_tags.count("early_stop"));
  // `fathom show` names both curves' best points and the one checkpoint_best follows.
  const ProgramResult shown = fathom({"--json", "show", std::to_string(full)});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  const auto best = nlohmann::json::parse(shown.out).at("best_points");
  EXPECT_EQ(best.at("valid_bleu").at("step"), whole.best_update);
  EXPECT_EQ(best.at("valid_bleu").at("checkpoint_best"), true);
  const ExpectedStop lowest_loss = expected_stop(curve(full, fathom::db::metric::kValidLoss), 0);
  EXPECT_EQ(best.at("valid_loss").at("step"), lowest_loss.best_update);
  EXPECT_EQ(best.at("valid_loss").at("value"), lowest_loss.best);
  EXPECT_EQ(best.at("valid_loss").at("checkpoint_best"), false);

  const auto run = record(early);
  EXPECT_EQ(run.status, "finished");
  EXPECT_EQ(run.updates, stop.update);
  const auto early_bleu = curve(early, fathom::db::metric::kValidBleu, -1);
  EXPECT_EQ(early_bleu.rbegin()->first, stop.update);
  for (const auto& [update, bleu] : early_bleu) EXPECT_EQ(bleu, full_bleu.at(update)) << update;
  const auto t = tags(early);
  EXPECT_EQ(fathom::db::parse_final_model_tag(t.at(fathom::db::kFinalModelTag)).update,
            stop.best_update);
  const std::string& why = t.at("early_stop");
  EXPECT_EQ(why.rfind("update " + std::to_string(stop.update) + ": " +
                          std::to_string(kBleuPatience) + " validations since update " +
                          std::to_string(stop.improved_update) + " without a valid_bleu above ",
                      0),
            0u)
      << why;
  EXPECT_NE(why.find(" + 0.1 (train.best_metric valid_bleu, train.patience 6"), std::string::npos)
      << why;
}

// Only rank 0 decodes the whole valid_bleu; the others must learn its score to count patience
// on it, or rank 0 would stop alone and leave them waiting in the next all-reduce.
TEST_F(EarlyStopCli, OnValidBleuDataParallelRanksStopTogetherWhereRankZerosScoresSay) {
  constexpr int kBleuPatience = 4;
  const int64_t run = train("ranks", kBleuPatience, kMaxUpdates, /*nproc=*/2, 0, kOnBleu);
  const ExpectedStop stop =
      expected_stop(curve(run, fathom::db::metric::kValidBleu, -1), kBleuPatience);
  ASSERT_GT(stop.update, 0);
  EXPECT_EQ(record(run).status, "finished");
  EXPECT_EQ(record(run).updates, stop.update);
  EXPECT_EQ(fathom::db::parse_final_model_tag(tags(run).at(fathom::db::kFinalModelTag)).update,
            stop.best_update);
}

}  // namespace test_early_stop_cli
