#include "db/fork_tags.h"

#include <stdexcept>

namespace fathom::db {

std::optional<ForkOrigin> fork_origin(const std::map<std::string, std::string>& tags) {
  const auto parent = tags.find(kForkedFromTag), at = tags.find(kForkedAtTag);
  if (parent == tags.end() || at == tags.end()) return std::nullopt;
  try {
    size_t parent_end = 0, at_end = 0;
    ForkOrigin origin{std::stoll(parent->second, &parent_end), std::stoll(at->second, &at_end)};
    if (parent_end != parent->second.size() || at_end != at->second.size()) return std::nullopt;
    return origin;
  } catch (const std::logic_error&) {  // not a number, or out of range
    return std::nullopt;
  }
}

std::optional<ForkOrigin> shared_fork_origin(
    const std::vector<std::map<std::string, std::string>>& runs_tags) {
  std::optional<ForkOrigin> shared;
  for (const auto& tags : runs_tags) {
    const auto origin = fork_origin(tags);
    if (!origin || (shared && (origin->parent != shared->parent || origin->step != shared->step)))
      return std::nullopt;
    shared = origin;
  }
  return shared;
}

std::vector<int64_t> forks_among(const std::map<int64_t, std::string>& forked_from, int64_t run) {
  std::vector<int64_t> forks;
  for (const auto& [id, parent] : forked_from)
    if (parent == std::to_string(run)) forks.push_back(id);
  return forks;
}

std::string forks_text(const std::vector<int64_t>& forks) {
  constexpr size_t kNamed = 10;
  std::string text = std::to_string(forks.size()) + (forks.size() == 1 ? " run: " : " runs: ");
  for (size_t i = 0; i < forks.size() && i < kNamed; ++i)
    text += (i ? ", #" : "#") + std::to_string(forks[i]);
  if (forks.size() > kNamed) text += " and " + std::to_string(forks.size() - kNamed) + " more";
  return text;
}

std::string fork_label(const ForkOrigin& origin) {
  return "(fork of #" + std::to_string(origin.parent) + " at " + std::to_string(origin.step) + ")";
}

std::string fork_settings(const std::map<std::string, std::string>& tags) {
  const auto it = tags.find(kForkSettingsTag);
  return it == tags.end() ? "" : it->second;
}

std::string fork_of_text(const ForkOrigin& origin, const std::map<std::string, std::string>& tags) {
  const std::string settings = fork_settings(tags);
  return "run " + std::to_string(origin.parent) + " at update " + std::to_string(origin.step) +
         " (" + (settings.empty() ? "nothing changed" : settings) + ")";
}

}  // namespace fathom::db
