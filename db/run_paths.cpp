#include "db/run_paths.h"

#include <cstdlib>
#include <filesystem>
#include <optional>

#include "base/util/error.h"

namespace fathom::db {
namespace fs = std::filesystem;

namespace {

// Whether two folder names are the same folder: by their resolved paths where they exist (a
// link, "a/../a"), else by the names once normalised.
bool same_folder(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  if (fs::equivalent(a, b, ec)) return true;
  auto normal = [](const fs::path& p) {
    std::error_code ignored;
    fs::path n = fs::weakly_canonical(p, ignored).lexically_normal();
    return n.has_filename() ? n : n.parent_path();  // "dir/" names "dir"
  };
  return normal(a) == normal(b);
}

}  // namespace

std::string StorePaths::run_dir(int64_t run_id) const {
  return (fs::path(artifacts_root) / ("run-" + std::to_string(run_id))).string();
}

StorePaths store_paths(const std::string& db_location, const std::string& artifacts) {
  std::string root = artifacts;
  if (root.empty())
    if (const char* env = std::getenv(kArtifactsEnv); env && *env) root = env;
  const StoreUrl url = parse_store_url(db_location);
  std::optional<StorePaths> beside_db;  // a SQLite store's own folders
  if (url.is_file()) {
    const fs::path db = fs::absolute(url.connect);
    const std::string stem = db.stem().string();
    beside_db = StorePaths{(db.parent_path() / (stem + ".artifacts")).string(),
                           (db.parent_path() / (stem + ".cache")).string()};
  }
  if (!root.empty()) {
    const fs::path dir = fs::absolute(root);
    // The launchers hand every worker the artifacts folder by name (FATHOM_ARTIFACTS), also
    // where it is the store's own: its cache stays the one beside the store, or the workers'
    // prepared corpora and vocabularies would be where `fathom analyze` never looks.
    if (beside_db && same_folder(dir, beside_db->artifacts_root)) return *beside_db;
    return {dir.string(), (dir / "cache").string()};
  }
  if (!beside_db)
    throw InputError(url.shown, 0, "--artifacts",
                     "a server store keeps no files; pass --artifacts DIR (or set " +
                         std::string(kArtifactsEnv) +
                         ") naming a directory every worker and the desktop app can reach");
  return *beside_db;
}

std::string earlier_cache_root(const std::string& cache_root) {
  fs::path cache = fs::path(cache_root).lexically_normal();
  if (!cache.has_filename()) cache = cache.parent_path();  // "x.cache/"
  if (cache.extension() != ".cache" || cache.stem().empty()) return "";
  return (cache.parent_path() / (cache.stem().string() + ".artifacts") / "cache").string();
}

}  // namespace fathom::db
