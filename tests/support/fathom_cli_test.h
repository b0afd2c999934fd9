#pragma once
// The fixture of tests that run the built `fathom` as a user does: a scratch folder with the
// run store runs.db in it, and fathom(args) that runs `fathom --db <it> ARGS...`. A test's
// fixture derives from it and, overriding SetUp, calls FathomCliTest::SetUp() first (it
// fails the test where the binary was not built). Header-only.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "base/util/process.h"
#include "tests/support/fathom_cli.h"
#include "tests/support/temp_dir.h"

namespace fathom::testing {

class FathomCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    binary_ = built_fathom_binary();
    ASSERT_TRUE(std::filesystem::exists(binary_)) << "fathom binary not built at " << binary_;
  }
  // `fathom --db runs.db ARGS...` in no particular folder, ended after `timeout_s`.
  ProgramResult fathom(std::vector<std::string> args, double timeout_s = 300) const {
    args.insert(args.begin(), {binary_.string(), "--db", db()});
    return run_program(args, "", {}, timeout_s);
  }
  std::string db() const { return (dir_ / "runs.db").string(); }

  TempDir scratch_;
  std::filesystem::path binary_;
  const std::filesystem::path& dir_ = scratch_.path();
};

}  // namespace fathom::testing
