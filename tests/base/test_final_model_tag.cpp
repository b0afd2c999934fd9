// The tag final_model (db/final_model_tag.h): what the trainer writes reads back as it was meant,
// and the texts stores already hold -- written before the tag had one vocabulary -- read as the
// model they named.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "db/final_model_tag.h"

namespace test_final_model_tag {
using fathom::db::final_model_tag;
using fathom::db::FinalModel;
using fathom::db::parse_final_model_tag;
using Kind = FinalModel::Kind;

void expect_same(const FinalModel& a, const FinalModel& b) {
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.update, b.update);
  EXPECT_EQ(a.averaged, b.averaged);
  EXPECT_EQ(a.asked, b.asked);
  EXPECT_EQ(a.nothing_to_average, b.nothing_to_average);
  EXPECT_EQ(a.best_metric, b.best_metric);
}

TEST(FinalModelTag, ReadsBackWhatItWrites) {
  const std::vector<FinalModel> models = {
      {Kind::BestCheckpoint, 900, {}, 0, false, ""},
      {Kind::BestCheckpoint, 385, {}, 0, false, "valid_bleu"},
      {Kind::MeanOfKept, 0, {600, 700, 800, 900, 1000}, 0, false, ""},
      {Kind::MeanOfKept, 0, {20, 25}, 5, false, ""},
      {Kind::MeanOfKept, 0, {700, 900, 1000}, 0, false, "valid_loss"},
      {Kind::MeanOfKept, 0, {385}, 3, false, "valid_bleu"},
      {Kind::FinalWeights, 1000, {}, 0, false, ""},
      {Kind::FinalWeights, 30, {}, 0, true, ""},
  };
  for (const auto& m : models) {
    SCOPED_TRACE(final_model_tag(m));
    expect_same(parse_final_model_tag(final_model_tag(m)), m);
  }
}

// The words of the tags runs already carry (docs/schema.md: run_tags).
TEST(FinalModelTag, ReadsTheTextsStoresAlreadyHold) {
  expect_same(parse_final_model_tag("checkpoint_best, update 7"),
              {Kind::BestCheckpoint, 7, {}, 0, false, ""});
  expect_same(parse_final_model_tag("mean of 3 checkpoints, updates 10 15 20"),
              {Kind::MeanOfKept, 0, {10, 15, 20}, 0, false, ""});
  expect_same(parse_final_model_tag("mean of 2 checkpoints, updates 20 25 (10 asked)"),
              {Kind::MeanOfKept, 0, {20, 25}, 10, false, ""});
  expect_same(parse_final_model_tag("the model after update 40"),
              {Kind::FinalWeights, 40, {}, 0, false, ""});
  expect_same(parse_final_model_tag("the model after update 40 (no kept checkpoint to average)"),
              {Kind::FinalWeights, 40, {}, 0, true, ""});
  // A run from before the tag was evaluated on its best checkpoint.
  EXPECT_EQ(parse_final_model_tag("").kind, Kind::BestCheckpoint);
  EXPECT_EQ(final_model_tag({Kind::MeanOfKept, 0, {10, 15, 20}, 0, false, ""}),
            "mean of 3 checkpoints, updates 10 15 20");
}

// train.best_metric: a best checkpoint by valid_bleu says so; valid_loss's tag stays as it was,
// so the tags of runs from before the key and of runs on the default read alike.
TEST(FinalModelTag, ABestCheckpointByAnotherMetricSaysWhich) {
  EXPECT_EQ(final_model_tag({Kind::BestCheckpoint, 385, {}, 0, false, "valid_bleu"}),
            "checkpoint_best by valid_bleu, update 385");
  EXPECT_EQ(final_model_tag({Kind::BestCheckpoint, 385, {}, 0, false, ""}),
            "checkpoint_best, update 385");
  using fathom::db::best_metric_of;
  EXPECT_EQ(best_metric_of(R"({"train": {"best_metric": "valid_bleu"}})"), "valid_bleu");
  EXPECT_EQ(best_metric_of(R"({"train": {"best_metric": "valid_loss"}})"), "");
  EXPECT_EQ(best_metric_of(R"({"train": {"lr": 0.001}})"), "");  // from before the key
  EXPECT_EQ(best_metric_of("not json"), "");
}

// eval.average_by best: the tag names the metric the averaged checkpoints are the best of.
TEST(FinalModelTag, AMeanOfTheBestCheckpointsSaysByWhich) {
  EXPECT_EQ(final_model_tag({Kind::MeanOfKept, 0, {700, 900, 1000}, 0, false, "valid_loss"}),
            "mean of 3 best checkpoints by valid_loss, updates 700 900 1000");
  EXPECT_EQ(final_model_tag({Kind::MeanOfKept, 0, {600, 700}, 0, false, ""}),
            "mean of 2 checkpoints, updates 600 700");
}

}  // namespace test_final_model_tag
