#include "db/run_paths.h"

#include <filesystem>

namespace fathom::db {
namespace fs = std::filesystem;

namespace {
fs::path beside(const std::string& db_path, const std::string& suffix) {
  const fs::path db = fs::absolute(db_path);
  return db.parent_path() / (db.stem().string() + suffix);
}
}  // namespace

std::string artifacts_dir(const std::string& db_path, int64_t run_id) {
  return (beside(db_path, ".artifacts") / ("run-" + std::to_string(run_id))).string();
}

std::string cache_dir(const std::string& db_path) { return beside(db_path, ".cache").string(); }

}  // namespace fathom::db
