// A long-lived reader notices when its SQLite connection went stale (db/sqlite_file_identity.h):
// this process closed a descriptor of the store file (as a file dialog sniffing its type does),
// which drops its POSIX locks, and a writer in another process that closed next believed it
// was the last connection and deleted -wal and -shm. The reader then sees a frozen store until
// it reopens; Store::connection_stale tells, Store::reopen_if_stale recovers.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "db/store.h"
#include "tests/support/fathom_cli.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using fathom::db::NewRun;
using fathom::db::OpenMode;
using fathom::db::Store;

namespace test_store_stale {

void add_run(Store& store, const std::string& name) {
  NewRun r;
  r.name = name;
  store.create_run(r);
}

// Another process adds a run through its own connection and closes it. A fresh program, not a
// fork: a forked child would inherit this process's SQLite state for the file.
void add_run_in_another_process(const std::string& db) {
  const std::string writer = fathom::testing::built_store_writer().string();
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::execl(writer.c_str(), writer.c_str(), db.c_str(), "1", "0", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << writer << " failed";
}

// What QMimeDatabase does to a file it cannot name by its suffix: opens it, reads, closes.
void read_first_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char header[16];
  in.read(header, sizeof header);
}

class StoreStale : public ::testing::Test {
 protected:
  void SetUp() override {
    Store store = Store::open(db_);
    add_run(store, "first");
  }
  fathom::testing::TempDir dir_;
  const std::string db_ = (dir_.path() / "runs.db").string();
};

TEST_F(StoreStale, AWriterClosingBesideAHealthyReaderKeepsItsFiles) {
  Store reader = Store::open(db_, OpenMode::ReadOnly);
  ASSERT_EQ(reader.list_runs().size(), 1u);
  add_run_in_another_process(db_);
  EXPECT_TRUE(fs::exists(db_ + "-wal"));  // the reader's lock told the writer it was not last
  EXPECT_FALSE(reader.connection_stale());
  EXPECT_EQ(reader.list_runs().size(), 2u);
}

TEST_F(StoreStale, LostLocksAreNoticedAndAReopenSeesEverything) {
  Store reader = Store::open(db_, OpenMode::ReadOnly);
  ASSERT_EQ(reader.list_runs().size(), 1u);
  read_first_bytes(db_);  // this process's locks on the store are gone
  add_run_in_another_process(db_);
  add_run_in_another_process(db_);
  // The writers removed the files the reader still reads: it is stuck before them.
  EXPECT_FALSE(fs::exists(db_ + "-shm"));
  EXPECT_TRUE(reader.connection_stale());
  EXPECT_TRUE(reader.reopen_if_stale());
  EXPECT_FALSE(reader.connection_stale());
  EXPECT_EQ(reader.list_runs().size(), 3u);
  EXPECT_FALSE(reader.reopen_if_stale());  // healthy again: nothing to do
}

TEST_F(StoreStale, AStoreReplacedOnDiskIsNoticed) {
  Store reader = Store::open(db_, OpenMode::ReadOnly);
  ASSERT_EQ(reader.list_runs().size(), 1u);
  const std::string other = (dir_.path() / "restored.db").string();
  {
    Store restored = Store::open(other);
    add_run(restored, "a");
    add_run(restored, "b");
  }
  fs::rename(other, db_);  // a backup restored over the open store
  EXPECT_TRUE(reader.connection_stale());
  reader.reopen();
  EXPECT_EQ(reader.list_runs().size(), 2u);
}

TEST_F(StoreStale, AFailedReopenLeavesAStoreThatSaysSo) {
  Store reader = Store::open(db_, OpenMode::ReadOnly);
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(db_ + suffix);
  EXPECT_TRUE(reader.connection_stale());
  EXPECT_THROW(reader.reopen(), std::exception);  // the store is gone
  EXPECT_TRUE(reader.connection_stale());
  try {
    reader.list_runs();
    FAIL() << "a store with no connection answered";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no connection"), std::string::npos) << e.what();
  }
}

}  // namespace test_store_stale
