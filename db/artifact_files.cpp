#include "db/artifact_files.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <utility>

namespace fathom::db {
namespace fs = std::filesystem;

std::string recorded_file(const std::vector<Artifact>& artifacts, const std::string& dir,
                          const std::string& kind) {
  for (const auto& a : artifacts)
    if (a.kind == kind) return (fs::path(dir) / fs::path(a.path).filename()).string();
  return "";
}

std::string artifact_file(const Artifact& artifact, const std::string& dir) {
  return dir.empty() ? artifact.path : recorded_file({artifact}, dir, artifact.kind);
}

std::optional<std::uintmax_t> file_bytes(const std::string& path) {
  std::error_code ec;
  const std::uintmax_t bytes = fs::file_size(path, ec);
  if (ec) return std::nullopt;
  return bytes;
}

std::uintmax_t bytes_freed_by_removing(const std::vector<std::string>& paths) {
  struct File {
    std::uintmax_t names = 0, links = 0, bytes = 0;
  };
  std::map<std::pair<dev_t, ino_t>, File> files;  // one entry per file, however many names
  std::set<std::string> seen;
  for (const auto& path : paths) {
    struct stat st {};
    if (!seen.insert(path).second || ::stat(path.c_str(), &st) != 0) continue;
    File& f = files[{st.st_dev, st.st_ino}];
    ++f.names;
    f.links = st.st_nlink;
    f.bytes = static_cast<std::uintmax_t>(st.st_size);
  }
  std::uintmax_t freed = 0;
  for (const auto& [id, f] : files)
    if (f.names >= f.links) freed += f.bytes;
  return freed;
}

ResumePoints resume_points(const std::vector<Artifact>& artifacts, const std::string& dir) {
  ResumePoints points;
  points.last = recorded_file(artifacts, dir, "checkpoint_last");
  points.previous = recorded_file(artifacts, dir, "checkpoint_previous");
  points.previous_has_row = !points.previous.empty();
  if (points.previous.empty() && fs::path(points.last).filename() == "checkpoint_last.pt")
    points.previous = (fs::path(dir) / "checkpoint_previous.pt").string();
  return points;
}

std::string kept_checkpoint_kind(int64_t update) { return "checkpoint_" + std::to_string(update); }

std::vector<KeptCheckpoint> kept_checkpoints(const std::vector<Artifact>& artifacts,
                                             const std::string& dir) {
  const std::string prefix = "checkpoint_";
  std::vector<KeptCheckpoint> kept;
  for (const auto& a : artifacts) {
    if (a.kind.rfind(prefix, 0) != 0) continue;
    const std::string digits = a.kind.substr(prefix.size());
    if (digits.empty() || digits.size() > 9 ||
        digits.find_first_not_of("0123456789") != std::string::npos)
      continue;  // checkpoint_best, _last, _average, ...
    kept.push_back(KeptCheckpoint{std::stoll(digits), recorded_file(artifacts, dir, a.kind)});
  }
  std::sort(kept.begin(), kept.end(),
            [](const KeptCheckpoint& a, const KeptCheckpoint& b) { return a.update < b.update; });
  return kept;
}

}  // namespace fathom::db
