#include "db/run_paths.h"

#include <cstdlib>
#include <filesystem>

#include "base/util/error.h"

namespace fathom::db {
namespace fs = std::filesystem;

std::string StorePaths::run_dir(int64_t run_id) const {
  return (fs::path(artifacts_root) / ("run-" + std::to_string(run_id))).string();
}

StorePaths store_paths(const std::string& db_location, const std::string& artifacts) {
  std::string root = artifacts;
  if (root.empty())
    if (const char* env = std::getenv(kArtifactsEnv); env && *env) root = env;
  if (!root.empty()) {
    const fs::path dir = fs::absolute(root);
    return {dir.string(), (dir / "cache").string()};
  }
  const StoreUrl url = parse_store_url(db_location);
  if (!url.is_file())
    throw InputError(url.shown, 0, "--artifacts",
                     "a server store keeps no files; pass --artifacts DIR (or set " +
                         std::string(kArtifactsEnv) +
                         ") naming a directory every worker and the desktop app can reach");
  const fs::path db = fs::absolute(url.connect);
  const std::string stem = db.stem().string();
  return {(db.parent_path() / (stem + ".artifacts")).string(),
          (db.parent_path() / (stem + ".cache")).string()};
}

}  // namespace fathom::db
