#pragma once
// The store tests' fixture, shared by tests/base/test_store*.cpp: the same test on each backend
// (a SQLite file, a database on ctest's PostgreSQL server; skipped with the reason where that
// server did not start), and a run to create. Each test file instantiates the suite itself:
//   INSTANTIATE_TEST_SUITE_P(Backends, StoreBackendTest, ::testing::Values("sqlite",
//                            "postgresql"), [](const auto& info) { return info.param; });
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>

#include "db/store.h"
#include "tests/support/store_backends.h"

namespace fathom::testing {

// db_path() is the store's location: a file or a URL.
class StoreBackendTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "postgresql")
      if (auto why = postgres_unavailable()) GTEST_SKIP() << *why;
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    scratch_.emplace(GetParam(), info->name());
  }
  const std::string& db_path() const { return scratch_->location(); }
  int64_t raw_count(const std::string& table, int64_t run) const {
    return scratch_->raw_count(table, table == "runs" ? "id" : "run_id", run);
  }
  std::optional<ScratchStore> scratch_;
};

inline db::NewRun sample_run(const std::string& name, const std::string& sweep = "") {
  db::NewRun r;
  r.name = name;
  r.sweep = sweep;
  r.config_json = R"({"model":{"encoder_layers":18}})";
  r.config_yaml = "model:\n  encoder_layers: 18\n";
  r.git_rev = "abc1234";
  return r;
}

}  // namespace fathom::testing
