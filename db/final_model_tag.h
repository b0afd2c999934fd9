#pragma once
// The run tag final_model: which model a run's final valid_* and test_* metrics measure
// (eval.average_checkpoints). One vocabulary for its writer (the trainer) and its readers (the
// comparison table's notes), so that new words cannot silently change how a table reads them.
// The text stays readable as a tag: "checkpoint_best, update 900" (the best by valid_loss),
// "checkpoint_best by valid_bleu, update 900" (train.best_metric), "mean of 5 checkpoints,
// updates 600 700 800 900 1000", "mean of 3 best checkpoints by valid_loss, updates 700 900
// 1000" (eval.average_by best), "the model after update 1000".
#include <cstdint>
#include <string>
#include <vector>

namespace fathom::db {

inline constexpr const char* kFinalModelTag = "final_model";

struct FinalModel {
  enum class Kind {
    BestCheckpoint,  // the checkpoint of the best best_metric (and runs from before the tag)
    MeanOfKept,      // the mean of kept checkpoints (eval.average_checkpoints, average_by)
    FinalWeights,    // the weights after the last update (no validation split, nothing kept)
  };
  Kind kind = Kind::BestCheckpoint;
  int64_t update = 0;             // BestCheckpoint: its update; FinalWeights: the last update
  std::vector<int64_t> averaged;  // MeanOfKept: the kept checkpoints' updates, oldest first
  int asked = 0;  // MeanOfKept: eval.average_checkpoints when fewer were kept (0: all there were)
  bool nothing_to_average = false;  // FinalWeights: averaging was asked, no checkpoint was kept
  // BestCheckpoint: the metric it is the best of (train.best_metric); "" for valid_loss, the
  // default and every run's from before the key. MeanOfKept: the metric the averaged
  // checkpoints are the best of (eval.average_by best); "" for the newest ones.
  std::string best_metric;
};

// train.best_metric of a stored config (JSON): "" where it is valid_loss, absent (runs from
// before the key) or unreadable -- as FinalModel::best_metric.
std::string best_metric_of(const std::string& config_json);

std::string final_model_tag(const FinalModel& model);

// What a tag says. "" (a run from before the tag) reads as the best checkpoint, on which such
// runs were evaluated; a text it does not know reads as the final weights.
FinalModel parse_final_model_tag(const std::string& tag);

}  // namespace fathom::db
