#include "analysis/registry.h"

#include <stdexcept>

namespace fathom::analysis {

const Analysis& find_analysis(const std::string& name) {
  const AnalysisRegistry& all = analyses();
  auto it = all.find(name);
  if (it != all.end()) return it->second;
  std::string names;
  for (const auto& [n, a] : all) names += (names.empty() ? "" : ", ") + n;
  throw std::invalid_argument("no analysis '" + name + "' (known: " + names + ")");
}

}  // namespace fathom::analysis
