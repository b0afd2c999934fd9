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
