#include "db/run_json.h"

#include <sstream>

#include <cmath>

namespace fathom::db {
namespace {

using Json = nlohmann::ordered_json;

Json time_or_null(double t) { return t > 0 ? Json(t) : Json(); }
Json text_or_null(const std::string& s) { return s.empty() ? Json() : Json(s); }
Json step_or_null(const std::optional<int64_t>& step) { return step ? Json(*step) : Json(); }

}  // namespace

Json run_to_json(const RunRecord& run) {
  Json metrics = Json::object();
  for (const auto& [name, value] : run.final_metrics)
    metrics[name] = std::isfinite(value) ? Json(value) : Json();
  return {
      {"id", run.id},
      {"name", run.name},
      {"sweep", text_or_null(run.sweep)},
      {"status", run.status},
      {"error", text_or_null(run.error)},
      {"diverged_step", step_or_null(run.diverged_step)},
      {"updates", run.updates},
      {"created_at", time_or_null(run.created_at)},
      {"started_at", time_or_null(run.started_at)},
      {"finished_at", time_or_null(run.finished_at)},
      {"heartbeat_at", time_or_null(run.heartbeat_at)},
      {"host", text_or_null(run.host)},
      {"device", text_or_null(run.device)},
      {"git_rev", text_or_null(run.git_rev)},
      {"final_metrics", metrics},
  };
}

Json artifact_to_json(const Artifact& artifact) {
  return {{"kind", artifact.kind}, {"path", artifact.path}, {"step", step_or_null(artifact.step)}};
}

const nlohmann::json* json_at(const nlohmann::json& root, const std::vector<std::string>& keys) {
  const nlohmann::json* node = &root;
  for (const auto& key : keys) {
    if (!node->is_object() || !node->contains(key)) return nullptr;
    node = &node->at(key);
  }
  return node;
}

std::string config_value(const std::string& config_json, const std::string& dotted_key) {
  const auto config = nlohmann::json::parse(config_json, nullptr, /*allow_exceptions=*/false);
  if (config.is_discarded()) return "";
  std::vector<std::string> keys;
  std::istringstream parts(dotted_key);
  for (std::string part; std::getline(parts, part, '.');) keys.push_back(part);
  const nlohmann::json* node = json_at(config, keys);
  if (!node) return "";
  return node->is_string() ? node->get<std::string>() : node->dump();
}

}  // namespace fathom::db
