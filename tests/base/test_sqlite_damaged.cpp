// A SQLite store with a damaged page is not written to (issue 57 item 8): with one b-tree page
// zeroed, `runs` already failed ("malformed") while `train` added a run, exited 0, and a refused
// `train` still left a "failed" run row. Opening for writing now checks the file first
// (PRAGMA quick_check) and refuses it, naming the store and what SQLite found, with the file
// left byte for byte as it was; reading it says the same.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "base/util/error.h"
#include "db/store.h"
#include "tests/support/temp_dir.h"

namespace test_sqlite_damaged {
namespace fs = std::filesystem;
using namespace fathom::db;

std::string bytes_of(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

class DamagedStore : public ::testing::Test {
 protected:
  void SetUp() override {
    {
      auto store = Store::open(path());
      std::vector<NewTaggedRun> runs(400);  // enough rows that the runs table spans many pages
      for (size_t i = 0; i < runs.size(); ++i) {
        runs[i].run.name = "run-" + std::to_string(i) + std::string(200, 'x');
        runs[i].run.config_json = "{\"i\": " + std::to_string(i) + "}";
      }
      store.create_runs(runs);
    }  // the last connection closing checkpoints the WAL: every page is in the main file
    ASSERT_GT(fs::file_size(path()), 20u * 4096);
  }
  std::string path() const { return (dir_.path() / "runs.db").string(); }

  // Zeroes page `page` (1-based, 4,096 bytes: SQLite's default page size).
  void zero_page(int page) {
    std::fstream f(path(), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(page - 1) * 4096);
    const std::string zeros(4096, '\0');
    f.write(zeros.data(), static_cast<std::streamsize>(zeros.size()));
  }
  fathom::testing::TempDir dir_;
};

TEST_F(DamagedStore, AHealthyStoreOpensForWriting) {
  auto store = Store::open(path());
  EXPECT_EQ(store.list_runs().size(), 400u);
}

TEST_F(DamagedStore, ADamagedStoreIsRefusedForWritingAndLeftAsItWas) {
  zero_page(15);
  const std::string before = bytes_of(path());
  try {
    auto store = Store::open(path());
    FAIL() << "opened a damaged store for writing";
  } catch (const fathom::InputError& e) {
    EXPECT_EQ(e.file(), path());
    EXPECT_NE(std::string(e.what()).find("damaged"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(".recover"), std::string::npos) << e.what();
  }
  EXPECT_EQ(bytes_of(path()), before) << "the damaged store was written to";
}

}  // namespace test_sqlite_damaged
