#include "db/final_model_tag.h"

#include <sstream>

#include <nlohmann/json.hpp>

#include "db/metric_names.h"

namespace fathom::db {
namespace {

const std::string kMean = "mean of ";
const std::string kBestOnes = " best checkpoints by ";
const std::string kBest = "checkpoint_best";
const std::string kBy = " by ";
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
  if (const size_t by = tag.find(kBestOnes); by != std::string::npos) {
    const size_t from = by + kBestOnes.size();
    m.best_metric = tag.substr(from, tag.find(',', from) - from);
  }
  if (asked != std::string::npos) m.asked = static_cast<int>(number_after(tag, tag.rfind('(')));
  return m;
}

}  // namespace

std::string final_model_tag(const FinalModel& model) {
  switch (model.kind) {
    case FinalModel::Kind::BestCheckpoint:
      return kBest + (model.best_metric.empty() ? "" : kBy + model.best_metric) + ", update " +
             std::to_string(model.update);
    case FinalModel::Kind::MeanOfKept: {
      std::string text = kMean + std::to_string(model.averaged.size()) +
                         (model.best_metric.empty() ? std::string(" checkpoints")
                                                    : kBestOnes + model.best_metric) +
                         ", updates";
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
    if (tag.compare(kBest.size(), kBy.size(), kBy) == 0) {
      const size_t from = kBest.size() + kBy.size();
      m.best_metric = tag.substr(from, tag.find(',', from) - from);
    }
    return m;
  }
  m.kind = FinalModel::Kind::FinalWeights;
  m.update = number_after(tag, 0);
  m.nothing_to_average = tag.find(kNothingKept) != std::string::npos;
  return m;
}

std::string best_metric_of(const std::string& config_json) {
  const auto config = nlohmann::json::parse(config_json, nullptr, /*allow_exceptions=*/false);
  if (!config.is_object() || !config.contains("train") || !config["train"].is_object()) return "";
  const auto metric = config["train"].find("best_metric");
  if (metric == config["train"].end() || !metric->is_string() || *metric == metric::kValidLoss)
    return "";
  return metric->get<std::string>();
}

}  // namespace fathom::db
