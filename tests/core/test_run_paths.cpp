// Where a store keeps its files (db/run_paths.h): beside a SQLite store by default; under a
// named artifacts folder otherwise -- except that naming the store's own artifacts folder, as
// the launchers do for every worker, changes nothing, the cache included.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "base/util/error.h"
#include "db/run_paths.h"
#include "tests/support/temp_dir.h"

namespace test_run_paths {
namespace fs = std::filesystem;
using fathom::db::store_paths;

class RunPaths : public ::testing::Test {
 protected:
  void SetUp() override { ::unsetenv(fathom::db::kArtifactsEnv); }
  void TearDown() override { ::unsetenv(fathom::db::kArtifactsEnv); }
  fathom::testing::TempDir scratch_;
  const fs::path& dir_ = scratch_.path();
};

TEST_F(RunPaths, ASqliteStoreKeepsItsFilesBesideIt) {
  const auto paths = store_paths((dir_ / "runs.db").string());
  EXPECT_EQ(paths.artifacts_root, (dir_ / "runs.artifacts").string());
  EXPECT_EQ(paths.cache_root, (dir_ / "runs.cache").string());
  EXPECT_EQ(paths.run_dir(7), (dir_ / "runs.artifacts" / "run-7").string());
}

TEST_F(RunPaths, NamingTheStoresOwnArtifactsFolderKeepsItsCache) {
  const std::string db = (dir_ / "runs.db").string();
  const auto plain = store_paths(db);
  // As written, with a trailing separator, through "..", before and after the folder exists,
  // and through the variable the local launcher sets for its workers.
  for (const std::string& named : {plain.artifacts_root, plain.artifacts_root + "/",
                                   (dir_ / "x" / ".." / "runs.artifacts").string()}) {
    for (bool exists : {false, true}) {
      if (exists) fs::create_directories(dir_ / "runs.artifacts");
      const auto paths = store_paths(db, named);
      EXPECT_EQ(paths.cache_root, plain.cache_root) << named << (exists ? " (exists)" : "");
      EXPECT_EQ(paths.run_dir(3), plain.run_dir(3)) << named;
    }
    fs::remove_all(dir_ / "runs.artifacts");
  }
  ::setenv(fathom::db::kArtifactsEnv, plain.artifacts_root.c_str(), 1);
  EXPECT_EQ(store_paths(db).cache_root, plain.cache_root);
}

TEST_F(RunPaths, AnotherArtifactsFolderHoldsTheCacheToo) {
  const std::string db = (dir_ / "runs.db").string();
  const auto paths = store_paths(db, (dir_ / "shared").string());
  EXPECT_EQ(paths.artifacts_root, (dir_ / "shared").string());
  EXPECT_EQ(paths.cache_root, (dir_ / "shared" / "cache").string());
  // Another store's folder is another folder.
  const auto other = store_paths(db, (dir_ / "other.artifacts").string());
  EXPECT_EQ(other.cache_root, (dir_ / "other.artifacts" / "cache").string());
}

TEST_F(RunPaths, AServerStoreNeedsAFolderNamed) {
  EXPECT_THROW(store_paths("postgresql://fathom@127.0.0.1:5432/runs"), fathom::InputError);
  const auto paths =
      store_paths("postgresql://fathom@127.0.0.1:5432/runs", (dir_ / "lab").string());
  EXPECT_EQ(paths.cache_root, (dir_ / "lab" / "cache").string());
}

}  // namespace test_run_paths
