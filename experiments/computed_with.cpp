#include "experiments/computed_with.h"

#include <algorithm>

namespace fathom::experiments {

ComputedWith computed_with(const db::RunRecord& run,
                           const std::map<std::string, std::string>& tags) {
  const auto tag = [&](const std::string& key) {
    const auto found = tags.find(key);
    return found == tags.end() ? std::string() : found->second;
  };
  return {{"blas.core", tag("blas.core")},
          {"device", run.device},
          {"git_rev", run.git_rev},
          {"libtorch", tag("libtorch")},
          {"threads", tag("threads")}};
}

std::map<std::string, std::vector<std::string>> computed_differently(
    const std::vector<ComputedWith>& runs) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& run : runs)
    for (const auto& [key, value] : run) out[key].push_back(value);
  for (auto it = out.begin(); it != out.end();) {
    const auto& v = it->second;
    const bool same = std::all_of(v.begin(), v.end(), [&](const auto& x) { return x == v[0]; });
    it = same ? out.erase(it) : std::next(it);
  }
  return out;
}

std::string run_id_ranges(std::vector<int64_t> ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::string out;
  for (size_t i = 0; i < ids.size();) {
    size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    out += (out.empty() ? "#" : ", #") + std::to_string(ids[i]);
    if (j > i) out += "-#" + std::to_string(ids[j]);
    i = j + 1;
  }
  return out;
}

namespace {

// A value's runs as ranges, or their count where runs of several values interleave and the
// ranges would run on for a line each.
std::string runs_text(const std::vector<int64_t>& ids) {
  const std::string ranges = run_id_ranges(ids);
  const auto pieces = std::count(ranges.begin(), ranges.end(), ',') + 1;
  return pieces <= 4 ? ranges : std::to_string(ids.size()) + " runs";
}

}  // namespace

std::optional<std::string> computed_differently_note(const std::vector<int64_t>& ids,
                                                     const std::vector<ComputedWith>& runs) {
  const auto differing = computed_differently(runs);
  if (differing.empty()) return std::nullopt;
  std::string text;
  for (const auto& [key, values] : differing) {
    // Each value once, in the order first seen, with the runs that have it.
    std::vector<std::string> order;
    std::map<std::string, std::vector<int64_t>> runs_of;
    for (size_t i = 0; i < values.size(); ++i) {
      if (!runs_of.count(values[i])) order.push_back(values[i]);
      runs_of[values[i]].push_back(ids[i]);
    }
    text += (text.empty() ? "" : "; ") + key + ":";
    for (size_t v = 0; v < order.size(); ++v)
      text += (v ? ", " : " ") + (order[v].empty() ? "not recorded" : order[v]) + " (" +
              runs_text(runs_of[order[v]]) + ")";
  }
  return "⚠ the runs were computed differently -- " + text +
         ": equal settings give other numbers on other OpenBLAS kernels, devices, code, LibTorch "
         "versions or thread counts, so a difference can be that alone (fathom compare lists each "
         "run's)";
}

}  // namespace fathom::experiments
