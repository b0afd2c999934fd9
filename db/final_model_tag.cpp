#include "db/final_model_tag.h"

#include <sstream>

namespace fathom::db {
namespace {

const std::string kMean = "mean of ";
const std::string kBest = "checkpoint_best";
const std::string kAfter = "the model after update ";
const std::string kNothingKept = " (no kept checkpoint to average)";

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}

// The first integer at or after `from` in `text`; 0 when there is none.
int64_t number_after(const std::string& text, size_t from) {
  const size_t at = text.find_first_of("0123456789", from);
  return at == std::string::npos ? 0 : std::stoll(text.substr(at, 18));
}

// "mean of 3 checkpoints, updates 10 15 20 (5 asked)".
FinalModel parse_mean(const std::string& tag) {
  FinalModel m;
  m.kind = FinalModel::Kind::MeanOfKept;
  const size_t updates = tag.find("updates");
  const size_t asked = tag.find(" asked)");
  std::istringstream words(
      updates == std::string::npos ? "" : tag.substr(updates + 7, tag.find('(') - updates - 7));
  for (int64_t u = 0; words >> u;) m.averaged.push_back(u);
  if (asked != std::string::npos) m.asked = static_cast<int>(number_after(tag, tag.rfind('(')));
  return m;
}

}  // namespace

std::string final_model_tag(const FinalModel& model) {
  switch (model.kind) {
    case FinalModel::Kind::BestCheckpoint:
      return kBest + ", update " + std::to_string(model.update);
    case FinalModel::Kind::MeanOfKept: {
      std::string text = kMean + std::to_string(model.averaged.size()) + " checkpoints, updates";
      for (int64_t u : model.averaged) text += " " + std::to_string(u);
      if (model.asked > 0) text += " (" + std::to_string(model.asked) + " asked)";
      return text;
    }
    case FinalModel::Kind::FinalWeights:
      return kAfter + std::to_string(model.update) + (model.nothing_to_average ? kNothingKept : "");
  }
  return "";
}

FinalModel parse_final_model_tag(const std::string& tag) {
  if (starts_with(tag, kMean)) return parse_mean(tag);
  FinalModel m;
  if (tag.empty()) return m;
  if (starts_with(tag, kBest)) {
    m.update = number_after(tag, kBest.size());
    return m;
  }
  m.kind = FinalModel::Kind::FinalWeights;
  m.update = number_after(tag, 0);
  m.nothing_to_average = tag.find(kNothingKept) != std::string::npos;
  return m;
}

}  // namespace fathom::db
