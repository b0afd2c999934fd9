#pragma once
// The run tag early_stop: why train.patience ended a run (core/train/early_stop.h writes it),
// or, once a resume with another patience trained the run past that stop, the same text
// behind "trained on from update U (train.patience P) after ". Read by the resume's refusal
// (cli/cmd_train.cpp) and the tables' note (experiments/comparison_table.h).
#include <map>
#include <string>

namespace fathom::db {

inline constexpr const char* kEarlyStopTag = "early_stop";
inline constexpr const char* kTrainedOnPastEarlyStop = "trained on from update ";

// Whether the tag's text says the run ends at its early stop (not trained past it since).
inline bool stop_ends_the_run(const std::string& early_stop_text) {
  return early_stop_text.rfind(kTrainedOnPastEarlyStop, 0) != 0;
}

// Whether the run's tags say it ends at its early stop.
inline bool ended_by_early_stop(const std::map<std::string, std::string>& tags) {
  const auto it = tags.find(kEarlyStopTag);
  return it != tags.end() && stop_ends_the_run(it->second);
}

}  // namespace fathom::db
