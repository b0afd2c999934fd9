#include "analysis/registry.h"

#include <stdexcept>

namespace fathom::analysis {

nlohmann::json AnalysisParams::to_json() const {
  return {{"depths", depths}, {"perturb", perturb},     {"draws", draws},
          {"inits", inits},   {"eps", eps},       {"layers", layers},       {"objective", objective},
          {"steps", steps},   {"lr", lr},               {"sample_batches", sample_batches},
          {"eval_every", eval_every}, {"patience", patience}};
}

const Analysis& find_analysis(const std::string& name) {
  const AnalysisRegistry& all = analyses();
  auto it = all.find(name);
  if (it != all.end()) return it->second;
  std::string names;
  for (const auto& [n, a] : all) names += (names.empty() ? "" : ", ") + n;
  throw std::invalid_argument("no analysis '" + name + "' (known: " + names + ")");
}

}  // namespace fathom::analysis
