#include "db/averaged_checkpoints.h"

#include <algorithm>
#include <cmath>

namespace fathom::db {

std::vector<KeptCheckpoint> checkpoints_to_average(std::vector<KeptCheckpoint> kept, int n,
                                                   bool by_best,
                                                   const std::map<int64_t, double>& metric_at,
                                                   bool higher_is_better) {
  const auto count = static_cast<size_t>(std::max(n, 0));
  if (!by_best) {
    if (kept.size() > count) kept.erase(kept.begin(), kept.end() - static_cast<long>(count));
    return kept;
  }
  std::vector<std::pair<double, KeptCheckpoint>> ranked;
  for (auto& k : kept)
    if (auto it = metric_at.find(k.update); it != metric_at.end() && std::isfinite(it->second))
      ranked.emplace_back(higher_is_better ? -it->second : it->second, std::move(k));
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first < b.first;
    return a.second.update > b.second.update;  // equal values: the one trained longer
  });
  if (ranked.size() > count) ranked.resize(count);
  std::vector<KeptCheckpoint> chosen;
  for (auto& [value, k] : ranked) chosen.push_back(std::move(k));
  std::sort(chosen.begin(), chosen.end(),
            [](const KeptCheckpoint& a, const KeptCheckpoint& b) { return a.update < b.update; });
  return chosen;
}

BestRetention retain_best(const std::vector<KeptCheckpoint>& earlier, int64_t update, int keep,
                          const std::map<int64_t, double>& metric_at, bool higher_is_better) {
  auto candidates = earlier;
  candidates.push_back({update, ""});
  const auto staying = checkpoints_to_average(candidates, keep, true, metric_at, higher_is_better);
  const auto stays = [&](int64_t u) {
    return std::any_of(staying.begin(), staying.end(),
                       [&](const KeptCheckpoint& k) { return k.update == u; });
  };
  const auto value = metric_at.find(update);
  BestRetention r;
  r.write = stays(update) || value == metric_at.end() || !std::isfinite(value->second);
  // Room for the new one where it is written: the best keep - 1 of the others stay then.
  const size_t room = static_cast<size_t>(std::max(keep, 1)) - (r.write ? 1 : 0);
  std::vector<KeptCheckpoint> others =
      checkpoints_to_average(earlier, static_cast<int>(room), true, metric_at, higher_is_better);
  for (const auto& k : earlier)
    if (std::none_of(others.begin(), others.end(),
                     [&](const KeptCheckpoint& o) { return o.update == k.update; }))
      r.retired.push_back(k.update);
  return r;
}

std::string averaged_checkpoints_label(const std::vector<KeptCheckpoint>& averaged,
                                       const std::string& best_by) {
  std::string label = "mean of " + std::to_string(averaged.size()) +
                      (best_by.empty() ? "" : " best by " + best_by) + ", updates";
  for (const auto& k : averaged) label += " " + std::to_string(k.update);
  return label;
}

}  // namespace fathom::db
