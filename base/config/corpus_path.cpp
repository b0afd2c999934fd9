#include "base/config/corpus_path.h"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

namespace fathom {
namespace fs = std::filesystem;

std::string corpora_home() {
  auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v ? v : "";
  };
  if (const std::string dir = env(kCorporaEnv); !dir.empty()) return fs::absolute(dir).string();
  if (const std::string xdg = env("XDG_DATA_HOME"); !xdg.empty())
    return (fs::path(xdg) / "fathom" / "corpora").string();
  if (const std::string home = env("HOME"); !home.empty())
    return (fs::path(home) / ".local" / "share" / "fathom" / "corpora").string();
  return (fs::temp_directory_path() / "fathom-corpora").string();
}

std::optional<std::string> corpus_file_path(const std::string& value) {
  const std::string prefix = kCorpusPrefix;
  if (value.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  const fs::path rest = fs::path(value.substr(prefix.size())).lexically_normal();
  const bool climbs = !rest.empty() && *rest.begin() == "..";
  if (rest.empty() || rest.is_absolute() || climbs || std::distance(rest.begin(), rest.end()) < 2)
    throw std::invalid_argument("'" + value +
                                "': expected corpus:NAME/FILE, e.g. corpus:multi30k/train.de.gz");
  return (fs::path(corpora_home()) / rest).string();
}

std::optional<std::string> missing_corpus_of(const std::string& path) {
  const fs::path home = fs::path(corpora_home()).lexically_normal();
  const fs::path rel = fs::path(path).lexically_normal().lexically_relative(home);
  if (rel.empty() || *rel.begin() == ".." || *rel.begin() == ".") return std::nullopt;
  const fs::path corpus = *rel.begin();
  std::error_code ec;
  if (fs::exists(home / corpus, ec)) return std::nullopt;
  return corpus.string();
}

}  // namespace fathom
