// SQLite's own file checks: the store file created with its parents at the latest schema,
// migrated, never seen half-created, readable on a read-only file system, and every bad file
// (missing, newer or damaged schema, garbage, a foreign database, corrupt pages, an unknown
// file format) refused with an InputError naming it, untouched.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "base/util/error.h"
#include "db/migrations.h"
#include "db/store.h"
#include "tests/support/store_test_fixture.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using namespace fathom::db;
using fathom::testing::sample_run;

namespace test_store_sqlite_file {

// A fresh directory per test, removed afterwards.
class StoreTest : public ::testing::Test {
 protected:
  std::string db_path() const { return (dir_ / "runs.db").string(); }
  // Opening the store is refused in both modes with an InputError naming the file and holding
  // every one of `words`.
  void expect_refused(const std::vector<std::string>& words) const {
    for (auto mode : {OpenMode::ReadOnly, OpenMode::ReadWrite}) {
      try {
        Store::open(db_path(), mode);
        ADD_FAILURE() << "expected InputError (mode " << int(mode) << ")";
      } catch (const fathom::InputError& e) {
        EXPECT_EQ(e.file(), db_path());
        for (const auto& w : words)
          EXPECT_NE(std::string(e.what()).find(w), std::string::npos) << e.what();
      }
    }
  }

  fathom::testing::TempDir scratch_;  // removed when the test ends
  const fs::path& dir_ = scratch_.path();
};

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A plain SQLite file (rollback journal) with the given user_version and one table.
void make_raw_db(const std::string& path, int user_version) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  std::string sql = "CREATE TABLE t(x); PRAGMA user_version = " + std::to_string(user_version) +
                    "; PRAGMA application_id = " + std::to_string(kApplicationId) + ";";
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
}

// ---- opening, schema, bad files -------------------------------------------------------------

TEST_F(StoreTest, CreatesFileAndParentsAtLatestVersion) {
  const std::string path = (dir_ / "a" / "b" / "runs.db").string();
  {
    auto store = Store::open(path);
    EXPECT_EQ(store.schema_version(), Store::latest_schema_version());
    EXPECT_EQ(store.path(), path);
  }
  EXPECT_TRUE(fs::exists(path));
  auto again = Store::open(path, OpenMode::ReadOnly);
  EXPECT_EQ(again.schema_version(), Store::latest_schema_version());
  EXPECT_THROW(again.create_run(sample_run("r")), std::logic_error);
}

TEST_F(StoreTest, MigratesEmptyFile) {
  { std::ofstream touch(db_path()); }  // zero bytes: an empty SQLite database
  // Read-only cannot initialize it.
  EXPECT_THROW(Store::open(db_path(), OpenMode::ReadOnly), fathom::InputError);
  auto store = Store::open(db_path());
  EXPECT_GE(Store::latest_schema_version(), 1);
  EXPECT_EQ(store.schema_version(), Store::latest_schema_version());

  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open_v2(db_path().c_str(), &raw, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(raw, "PRAGMA journal_mode", -1, &st, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), "wal");
  sqlite3_finalize(st);
  sqlite3_close(raw);
}

// A reader opening a store while another connection creates it sees no store yet (missing or
// empty file) or the finished one, never a schema version in between, which it would refuse
// as "older than this build". Migrating one transaction per step left such a window: a sweep's
// status poll failed on a store its scheduler was creating (found by a kill-and-resume test on
// a loaded machine). Many fresh stores, each raced by a reader spinning on it.
TEST_F(StoreTest, ReaderNeverSeesAHalfCreatedStore) {
  constexpr int kStores = 200;
  std::atomic<int> creating{-1};  // index of the store being created; kStores: done
  std::atomic<int> reads{0};
  std::vector<std::string> seen_wrong;
  auto store_path = [&](int i) { return (dir_ / ("s" + std::to_string(i) + ".db")).string(); };
  std::thread reader([&] {
    for (;;) {
      const int i = creating.load();
      if (i >= kStores) return;
      if (i < 0) continue;
      try {
        const auto store = Store::open(store_path(i), OpenMode::ReadOnly);
        if (store.schema_version() != Store::latest_schema_version())
          seen_wrong.push_back("version " + std::to_string(store.schema_version()));
        ++reads;
      } catch (const fathom::InputError& e) {
        const std::string what = e.what();
        if (what.find("not found") == std::string::npos &&
            what.find("empty file") == std::string::npos)
          seen_wrong.push_back(what);
        ++reads;
      }
    }
  });
  for (int i = 0; i < kStores; ++i) {
    creating = i;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));  // let the reader start on it
    Store::open(store_path(i));
  }
  creating = kStores;
  reader.join();
  EXPECT_TRUE(seen_wrong.empty()) << seen_wrong.size() << " bad reads, first: " << seen_wrong[0];
  EXPECT_GT(reads.load(), kStores) << "the reader hardly ran: the race was not exercised";
}

// A store on a read-only filesystem (a colleague's results, an archive mount) can still be
// listed: a WAL reader would have to create the -shm file beside it. A tmpfs the test mounts
// and remounts read-only stands in; root can write through directory permissions, not
// through a read-only mount. Skipped with the reason when it cannot mount (not root).
TEST_F(StoreTest, StoreOnAReadOnlyFilesystemCanBeRead) {
  const fs::path mount = dir_ / "ro";
  fs::create_directories(mount);
  const std::string at = mount.string();
  if (std::system(("mount -t tmpfs -o size=8m tmpfs '" + at + "' 2>/dev/null").c_str()) != 0)
    GTEST_SKIP() << "cannot mount a tmpfs at " << at << " (needs root)";
  struct Unmount {
    std::string at;
    ~Unmount() { std::system(("umount '" + at + "'").c_str()); }
  } unmount{at};
  const std::string path = (mount / "runs #1.db").string();  // '#' must survive the URI
  int64_t id = 0;
  {
    auto store = Store::open(path);
    id = store.create_run(sample_run("archived", "depth"));
    store.set_final_metric(id, "valid_ppl", 3.25);
  }
  ASSERT_FALSE(fs::exists(path + "-wal"));  // a clean close leaves everything in the main file
  ASSERT_EQ(std::system(("mount -o remount,ro '" + at + "'").c_str()), 0);
  ASSERT_NE(::access(at.c_str(), W_OK), 0);

  auto store = Store::open(path, OpenMode::ReadOnly);
  const auto runs = store.list_runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].id, id);
  EXPECT_EQ(runs[0].name, "archived");
  EXPECT_DOUBLE_EQ(runs[0].final_metrics.at("valid_ppl"), 3.25);
  EXPECT_EQ(store.path(), path);
}

TEST_F(StoreTest, MissingFileReadOnlyIsAnError) {
  try {
    Store::open(db_path(), OpenMode::ReadOnly);
    FAIL() << "expected InputError";
  } catch (const fathom::InputError& e) {
    EXPECT_EQ(e.file(), db_path());
  }
  EXPECT_FALSE(fs::exists(db_path()));
}

TEST_F(StoreTest, NewerSchemaIsRefusedAndUntouched) {
  make_raw_db(db_path(), Store::latest_schema_version() + 1);
  const std::string before = read_bytes(db_path());
  expect_refused({"newer"});
  EXPECT_EQ(read_bytes(db_path()), before);
  EXPECT_FALSE(fs::exists(db_path() + "-wal"));
}

// user_version is a signed 32-bit field: a damaged header can make it negative. Refused as a
// damaged file -- before, the migration step was looked up at index -1 (an out-of-bounds read,
// found by fuzz/fuzz_store.cpp under UBSan).
TEST_F(StoreTest, NegativeSchemaVersionIsRefusedAndUntouched) {
  make_raw_db(db_path(), -1);
  const std::string before = read_bytes(db_path());
  expect_refused({"schema version -1", "damaged"});
  EXPECT_EQ(read_bytes(db_path()), before);
}

TEST_F(StoreTest, GarbageFileIsAnInputError) {
  {
    std::ofstream out(db_path(), std::ios::binary);
    for (int i = 0; i < 500; ++i) out << "this is not a database, it is a text file\n";
  }
  const std::string before = read_bytes(db_path());
  expect_refused({});
  EXPECT_EQ(read_bytes(db_path()), before);
}

TEST_F(StoreTest, ForeignSqliteDatabaseIsAnInputError) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path().c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE songs(title)", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  EXPECT_THROW(Store::open(db_path()), fathom::InputError);
}

TEST_F(StoreTest, CorruptPagesAreAnInputError) {
  {
    auto store = Store::open(db_path());
    const int64_t id = store.create_run(sample_run("r"));
    std::vector<MetricRow> rows;
    for (int i = 0; i < 2000; ++i) rows.emplace_back(i, "loss", i, 0.0);
    store.write_metrics(id, rows);
  }  // closing the last connection checkpoints the WAL into the file
  std::string bytes = read_bytes(db_path());
  ASSERT_GT(bytes.size(), 8192u);
  for (size_t i = 4096; i < bytes.size(); ++i) bytes[i] = static_cast<char>(0xA5);
  std::ofstream(db_path(), std::ios::binary | std::ios::trunc) << bytes;

  // The header is intact, so the damage may only show on the first read of a table.
  EXPECT_THROW(
      {
        auto store = Store::open(db_path(), OpenMode::ReadOnly);
        store.list_runs();
        store.metric_series(1, "loss");
      },
      fathom::InputError);
}

// A store whose schema was damaged -- a column renamed, as a flipped byte in sqlite_master's
// SQL does (found by fuzz/fuzz_store.cpp) -- is refused at open with an InputError naming the
// file and the table, in both modes, and the file is left byte for byte as it was. Before, it
// opened and its first query failed with "no such column: error", naming no cause.
TEST_F(StoreTest, DamagedSchemaIsRefusedAtOpenAndUntouched) {
  {
    auto store = Store::open(db_path());
    store.create_run(sample_run("r"));
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path().c_str(), &db), SQLITE_OK);
  ASSERT_EQ(
      sqlite3_exec(db, "ALTER TABLE runs RENAME COLUMN error TO errxr", nullptr, nullptr, nullptr),
      SQLITE_OK);
  sqlite3_close(db);
  const std::string before = read_bytes(db_path());
  expect_refused({"damaged", "table 'runs'", "without (error TEXT)", "but with (errxr TEXT)"});
  EXPECT_EQ(read_bytes(db_path()), before);
}

// A header whose schema-format number SQLite does not know (bytes 44-47; a damaged file, or
// one from a far newer SQLite) is an InputError naming the file, not a bare "preparing SELECT
// ...: unsupported file format" (found by fuzz/fuzz_store.cpp).
TEST_F(StoreTest, UnsupportedSqliteFileFormatIsAnInputError) {
  {
    auto store = Store::open(db_path());
    store.create_run(sample_run("r"));
  }
  std::string bytes = read_bytes(db_path());
  ASSERT_GT(bytes.size(), 48u);
  bytes[44] = bytes[45] = bytes[46] = 0, bytes[47] = 99;
  std::ofstream(db_path(), std::ios::binary | std::ios::trunc) << bytes;
  expect_refused({"file format"});
}

}  // namespace test_store_sqlite_file
