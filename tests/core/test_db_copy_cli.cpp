// The command line on a PostgreSQL store, as a user runs it: `fathom train` writing to the
// server (artifacts in --artifacts), `fathom db copy` SQLite -> PostgreSQL -> SQLite with
// the row counts checked, and the errors: a server store without --artifacts, a non-empty
// destination. No output ever shows the password.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "db/store.h"
#include "tests/support/fathom_cli.h"
#include "tests/support/store_backends.h"

namespace test_db_copy_cli {
namespace fs = std::filesystem;
namespace ft = fathom::testing;
using fathom::db::OpenMode;
using fathom::db::Store;

std::string quote(const std::string& s) { return fathom::testing::shell_quote(s); }

std::string read_file(const fs::path& path) { return fathom::testing::read_text(path); }

struct Result {
  int status = -1;
  std::string out, err;
};

const char* const kTinyConfig =
    "name: pg-tiny\n"
    "device: cpu\n"
    "model: {d_model: 16, heads: 2, d_ff: 32, encoder_layers: 1, decoder_layers: 1}\n"
    "data:\n"
    "  task: synthetic\n"
    "  max_tokens: 256\n"
    "  synthetic: {vocab: 8, train_size: 300, valid_size: 20, test_size: 10}\n"
    "train: {lr: 0.005, warmup: 10, max_updates: 12, valid_every: 6, log_every: 3, threads: 1}\n"
    "eval: {beam: 2, max_sentences: 5}\n";

class DbCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = ft::postgres_unavailable()) GTEST_SKIP() << *why;
    std::error_code ec;
    binary_ = fs::read_symlink("/proc/self/exe", ec).parent_path().parent_path() / "fathom";
    // A missing binary is a broken build, not a reason to pass.
    ASSERT_TRUE(fs::exists(binary_)) << "fathom binary not found at " << binary_;
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    scratch_.emplace("postgresql", info->name());
    dir_ = scratch_->dir();
    password_ = ft::postgres_password();
  }

  // `fathom ARGS...` in the scratch directory, FATHOM_DB and FATHOM_ARTIFACTS unset.
  Result fathom(const std::vector<std::string>& args) {
    std::string command = "cd " + quote(dir_.string()) +
                          " && env -u FATHOM_DB -u FATHOM_ARTIFACTS " + quote(binary_.string());
    for (const auto& a : args) command += " " + quote(a);
    const fs::path out = dir_ / "stdout.txt", err = dir_ / "stderr.txt";
    command += " >" + quote(out.string()) + " 2>" + quote(err.string());
    const int raw = std::system(command.c_str());
    Result r{WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, read_file(out), read_file(err)};
    EXPECT_EQ(r.out.find(password_), std::string::npos) << "password on stdout";
    EXPECT_EQ(r.err.find(password_), std::string::npos) << "password on stderr";
    return r;
  }
  const std::string& pg() const { return scratch_->location(); }

  std::optional<ft::ScratchStore> scratch_;
  fs::path binary_, dir_;
  std::string password_;
};

TEST_F(DbCli, TrainingOnAServerStoreNeedsArtifactsAndThenWritesEverythingThere) {
  const std::string config = (dir_ / "tiny.yaml").string();
  std::ofstream(config) << kTinyConfig;
  Result r = fathom({"--db", pg(), "train", config, "--no-progress"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("--artifacts"), std::string::npos) << r.err;
  {
    auto store = Store::open(pg());
    EXPECT_TRUE(store.list_runs().empty()) << "a refused command created a run";
  }

  const fs::path artifacts = dir_ / "shared-artifacts";
  r = fathom({"--db", pg(), "--artifacts", artifacts.string(), "train", config, "--no-progress"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto store = Store::open(pg(), OpenMode::ReadOnly);
  const auto runs = store.list_runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].status, "finished");
  EXPECT_EQ(runs[0].updates, 12);
  // log_every 3 over 12 updates: train_loss at 3, 6, 9, 12.
  const auto loss = store.metric_series(runs[0].id, "train_loss");
  ASSERT_EQ(loss.size(), 4u);
  EXPECT_EQ(loss.back().step, 12);
  EXPECT_TRUE(runs[0].final_metrics.count("test_bleu"));
  // Every file the store records is in the run's directory under --artifacts.
  const auto recorded = store.artifacts(runs[0].id);
  ASSERT_FALSE(recorded.empty());
  for (const auto& a : recorded) {
    EXPECT_EQ(fs::path(a.path).parent_path(), artifacts / ("run-" + std::to_string(runs[0].id)));
    EXPECT_TRUE(fs::exists(a.path)) << a.kind;
  }
  // `runs` and `show` read it back, naming the store without its password.
  r = fathom({"--db", pg(), "runs"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("pg-tiny"), std::string::npos) << r.out;
}

TEST_F(DbCli, CopyMovesAStoreBothWaysWithCountsChecked) {
  const std::string source = (dir_ / "source.db").string(), back = (dir_ / "back.db").string();
  int64_t diverged = 0;
  {
    auto store = Store::open(source);
    for (int i = 0; i < 5; ++i) {
      const int64_t id =
          store.create_run({"run" + std::to_string(i), "sweep", "{}", "", "", "", ""});
      std::vector<fathom::db::MetricRow> rows;
      for (int step = 1; step <= 100; ++step)
        rows.emplace_back(step, "train_loss", 1.0 / step, 1.0);
      store.write_metrics(id, rows);
      store.set_final_metric(id, "valid_ppl", 2.0 + i);
      store.set_tag(id, "axis.seed", std::to_string(i));
      store.finish_run(id, i == 3 ? "diverged" : "finished", "",
                       i == 3 ? std::optional<int64_t>(50) : std::nullopt);
      if (i == 3) diverged = id;
    }
    store.delete_run(2);  // a gap in the ids must survive the copy
  }
  Result r = fathom({"db", "copy", source, pg(), "--no-progress"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("4 runs, 400 metric rows"), std::string::npos) << r.out;

  // Into a store that already has runs: refused, and the destination is unchanged.
  r = fathom({"db", "copy", source, pg(), "--no-progress"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("already holds 4 runs"), std::string::npos) << r.err;

  r = fathom({"db", "copy", pg(), back, "--no-progress"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto original = Store::open(source, OpenMode::ReadOnly),
       copied = Store::open(back, OpenMode::ReadOnly);
  EXPECT_TRUE(original.counts() == copied.counts());
  EXPECT_FALSE(copied.find_run("2"));
  const auto run = *copied.find_run(std::to_string(diverged));
  EXPECT_EQ(run.status, "diverged");
  EXPECT_EQ(run.diverged_step, 50);
  EXPECT_EQ(copied.metric_rows(diverged), original.metric_rows(diverged));
}

}  // namespace test_db_copy_cli
