// A run records the OpenBLAS kernels it computed with (tag blas.core): they round differently
// from one kind of CPU to another, so the same seed gives other numbers on another machine
// (README) -- the tag says why, and OPENBLAS_CORETYPE, which chooses them, shows in it. Its
// LibTorch version beside them (tag libtorch).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "base/util/process.h"
#include "db/store.h"
#include "tests/support/fathom_cli.h"
#include "tests/support/temp_dir.h"

namespace test_blas_core_tag_cli {
namespace ft = fathom::testing;
using fathom::db::OpenMode;
using fathom::db::Store;

TEST(BlasCoreTag, ARunRecordsTheKernelsOpenBlasWasToldToUse) {
  ft::TempDir dir;
  const std::string db = (dir.path() / "runs.db").string();
  const std::string config = (dir.path() / "tiny.yaml").string();
  std::ofstream(config) << ft::tiny_config_yaml("tiny",
                                                "{lr: 0.005, max_updates: 2, log_every: 1}");
  const auto argv = [&](const std::string& name) {
    return std::vector<std::string>{ft::built_fathom_binary().string(),
                                    "--db",
                                    db,
                                    "train",
                                    config,
                                    "--set",
                                    "name=" + name,
                                    "--no-progress"};
  };
  // Haswell's kernels (AVX2) run on every machine CI has; OpenBLAS reports the core it was told.
  const auto told = fathom::run_program(
      argv("told"), "", fathom::environment_with({"OPENBLAS_CORETYPE=Haswell"}), 300);
  ASSERT_EQ(told.exit_code, 0) << told.err;
  const auto own = fathom::run_program(argv("own"), "", {}, 300);
  ASSERT_EQ(own.exit_code, 0) << own.err;
  const Store store = Store::open(db, OpenMode::ReadOnly);
  const auto told_tags = store.tags(store.find_run("told")->id);
  const auto own_tags = store.tags(store.find_run("own")->id);
  // The LibTorch version beside them ("1.13.0"): 1.13 and 2.x take other paths on one CPU.
  ASSERT_TRUE(own_tags.count("libtorch"));
  EXPECT_TRUE(std::regex_match(own_tags.at("libtorch"), std::regex(R"(\d+\.\d+\.\d+.*)")))
      << own_tags.at("libtorch");
  if (!told_tags.count("blas.core")) GTEST_SKIP() << "LibTorch here does not use OpenBLAS";
  EXPECT_EQ(told_tags.at("blas.core"), "Haswell");
  ASSERT_TRUE(own_tags.count("blas.core"));
  EXPECT_FALSE(own_tags.at("blas.core").empty());
  const auto shown = fathom::run_program({ft::built_fathom_binary().string(), "--db", db, "show",
                                          std::to_string(store.find_run("told")->id)});
  EXPECT_NE(shown.out.find("blas.core"), std::string::npos) << shown.out;

  // Resumed (extended to update 4) on other kernels: the tag keeps the first stretch's and adds
  // the new ones from update 2; resumed again on those, it stays.
  const auto resume = [&](const std::string& core, int updates) {
    return fathom::run_program(
        {ft::built_fathom_binary().string(), "--db", db, "train", "--resume", "told", "--set",
         "train.max_updates=" + std::to_string(updates), "--no-progress"},
        "", fathom::environment_with({"OPENBLAS_CORETYPE=" + core}), 300);
  };
  const auto moved = resume("Sandybridge", 4);
  ASSERT_EQ(moved.exit_code, 0) << moved.err;
  const auto tag = [&] {
    return Store::open(db, OpenMode::ReadOnly).tags(store.find_run("told")->id).at("blas.core");
  };
  if (tag() == "Haswell") GTEST_SKIP() << "this OpenBLAS has no Sandybridge kernels to choose";
  EXPECT_EQ(tag(), "Haswell, then Sandybridge from update 2");
  ASSERT_EQ(resume("Sandybridge", 6).exit_code, 0);
  EXPECT_EQ(tag(), "Haswell, then Sandybridge from update 2");
}

}  // namespace test_blas_core_tag_cli
