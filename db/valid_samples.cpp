#include "db/valid_samples.h"

#include <nlohmann/json.hpp>

#include "db/metric_names.h"

namespace fathom::db {

bool is_samples_tag(const std::string& key) { return key.rfind(kSamplesTagPrefix, 0) == 0; }

bool continues_prompts(const std::string& config_json) {
  const auto config = nlohmann::json::parse(config_json, nullptr, false);
  return config.is_object() && config.contains("model") && config["model"].is_object() &&
         config["model"].value("arch", "") == "decoder_only";
}

std::map<int64_t, std::vector<ValidSample>> validation_samples(
    const std::map<std::string, std::string>& tags) {
  std::map<int64_t, std::vector<ValidSample>> out;
  for (const auto& [key, value] : tags) {
    if (!is_samples_tag(key)) continue;
    try {
      const int64_t update = std::stoll(key.substr(kSamplesTagPrefix.size()));
      std::vector<ValidSample> samples;
      for (const auto& s : nlohmann::json::parse(value))
        samples.push_back({s.at("source").get<std::string>(), s.at("reference").get<std::string>(),
                           s.at("hypothesis").get<std::string>(), s.value("sampled", ""),
                           s.value("top_k", 0)});
      out[update] = std::move(samples);
    } catch (const std::exception&) {
      continue;
    }
  }
  return out;
}

}  // namespace fathom::db
