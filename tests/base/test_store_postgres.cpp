// The PostgreSQL backend's own failures, against the real server ctest starts
// (scripts/pg-test-server.sh): foreign and newer databases, refused logins, an unreachable
// server, a connection dropped under a writer or at COMMIT. Every message names the URL,
// never its password.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <future>
#include <string>
#include <thread>

#include "base/util/error.h"
#include "db/metric_writer.h"
#include "db/outdated_store.h"
#include "db/store.h"
#include "tests/support/store_backends.h"

using namespace fathom::db;
namespace ft = fathom::testing;

namespace test_store_postgres {

NewRun named(const std::string& name) {
  NewRun run;
  run.name = name;
  return run;
}

class PostgresStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = ft::postgres_unavailable()) GTEST_SKIP() << *why;
    name_ = "pg" + std::to_string(getpid());
    url_ = ft::create_postgres_database(name_);
    password_ = ft::postgres_password();
  }
  void TearDown() override {
    unsetenv("FATHOM_DB_RETRY_SECONDS");
    if (!name_.empty()) {
      ft::postgres_exec("postgres", "ALTER DATABASE \"" + name_ + "\" ALLOW_CONNECTIONS true");
      ft::drop_postgres_database(name_);
    }
  }
  // The error Store::open throws, with checks every message must pass.
  fathom::InputError open_error(const std::string& url, OpenMode mode) {
    try {
      Store::open(url, mode);
    } catch (const fathom::InputError& e) {
      EXPECT_EQ(std::string(e.what()).find(password_), std::string::npos) << "password printed";
      return e;
    }
    ADD_FAILURE() << "expected an InputError";
    return fathom::InputError("", 0, "", "");
  }
  std::string name_, url_, password_;
};

TEST_F(PostgresStoreTest, CreatesTheSchemaAndRecordsItsVersion) {
  auto store = Store::open(url_);
  EXPECT_EQ(store.schema_version(), Store::latest_schema_version());
  EXPECT_EQ(ft::postgres_exec(name_, "SELECT value FROM fathom_meta WHERE key = 'schema_version'"),
            std::to_string(Store::latest_schema_version()));
  EXPECT_EQ(ft::postgres_exec(name_, "SELECT value FROM fathom_meta WHERE key = 'application'"),
            "fathom");
  // The printable form hides the password; the location keeps it for reopening.
  EXPECT_EQ(store.path().find(password_), std::string::npos);
  EXPECT_NE(store.path().find("***"), std::string::npos);
  EXPECT_EQ(store.location(), url_);
  EXPECT_FALSE(store.is_file());
}

// A store made at schema version 4 migrates: version 5's runs_state is made, the claim's
// runs_queued (version 1's) is there once, and the version is the latest.
TEST_F(PostgresStoreTest, AVersion4StoreMigratesToTheLatest) {
  Store::open(url_).create_run(named("a"));
  ft::postgres_exec(name_, "DROP INDEX runs_state");  // as version 4 left it
  ft::postgres_exec(name_, "UPDATE fathom_meta SET value = '4' WHERE key = 'schema_version'");
  auto store = Store::open(url_);
  EXPECT_EQ(store.schema_version(), Store::latest_schema_version());
  EXPECT_EQ(ft::postgres_exec(name_, "SELECT value FROM fathom_meta WHERE key = 'schema_version'"),
            std::to_string(Store::latest_schema_version()));
  EXPECT_EQ(
      ft::postgres_exec(name_, "SELECT count(*) FROM pg_indexes WHERE indexname = 'runs_queued'"),
      "1");
  EXPECT_EQ(
      ft::postgres_exec(name_, "SELECT count(*) FROM pg_indexes WHERE indexname = 'runs_state'"),
      "1");
  EXPECT_EQ(store.list_run_states("").size(), 0u);  // "a" is in no sweep
  EXPECT_EQ(store.list_runs().size(), 1u);
}

// Read-only, the same store is refused with the versions and the command that upgrades it, its
// URL shown without the password, and left at version 4.
TEST_F(PostgresStoreTest, AVersion4StoreReadOnlyIsRefusedNamingTheUpgrade) {
  Store::open(url_).create_run(named("a"));
  ft::postgres_exec(name_, "DROP INDEX runs_state");
  ft::postgres_exec(name_, "UPDATE fathom_meta SET value = '4' WHERE key = 'schema_version'");
  try {
    Store::open(url_, OpenMode::ReadOnly);
    FAIL() << "an older store opened read-only";
  } catch (const fathom::db::OutdatedStoreError& e) {
    EXPECT_EQ(e.version(), 4);
    EXPECT_EQ(e.latest(), Store::latest_schema_version());
    EXPECT_NE(e.message().find("fathom db upgrade"), std::string::npos) << e.message();
    EXPECT_EQ(std::string(e.what()).find(password_), std::string::npos) << e.what();
  }
  EXPECT_EQ(ft::postgres_exec(name_, "SELECT value FROM fathom_meta WHERE key = 'schema_version'"),
            "4");
}

TEST_F(PostgresStoreTest, ADatabaseWithForeignTablesIsRefusedAndUntouched) {
  ft::postgres_exec(name_, "CREATE TABLE songs (title text)");
  const auto e = open_error(url_, OpenMode::ReadWrite);
  EXPECT_NE(e.message().find("not a Fathom run store"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("songs"), std::string::npos) << e.message();
  EXPECT_EQ(ft::postgres_exec(name_,
                              "SELECT count(*) FROM information_schema.tables"
                              " WHERE table_schema = 'public'"),
            "1");  // nothing created beside it
}

TEST_F(PostgresStoreTest, ANewerSchemaIsRefusedAndUntouched) {
  { Store::open(url_); }
  const std::string newer = std::to_string(Store::latest_schema_version() + 1);
  ft::postgres_exec(name_,
                    "UPDATE fathom_meta SET value = '" + newer + "' WHERE key = 'schema_version'");
  for (auto mode : {OpenMode::ReadWrite, OpenMode::ReadOnly}) {
    const auto e = open_error(url_, mode);
    EXPECT_NE(e.message().find("newer"), std::string::npos) << e.message();
  }
  EXPECT_EQ(ft::postgres_exec(name_, "SELECT value FROM fathom_meta WHERE key = 'schema_version'"),
            newer);
}

TEST_F(PostgresStoreTest, AnEmptyDatabaseIsNotAStoreReadOnly) {
  const auto e = open_error(url_, OpenMode::ReadOnly);
  EXPECT_NE(e.message().find("empty database"), std::string::npos) << e.message();
  EXPECT_EQ(ft::postgres_exec(name_,
                              "SELECT count(*) FROM information_schema.tables"
                              " WHERE table_schema = 'public'"),
            "0");
}

TEST_F(PostgresStoreTest, ARefusedLoginNamesTheUrlButNotThePassword) {
  const std::string wrong = "hunter2-not-the-password";
  const auto e = open_error(ft::postgres_url_with_password(name_, wrong), OpenMode::ReadWrite);
  EXPECT_NE(e.message().find("password authentication failed"), std::string::npos) << e.message();
  EXPECT_EQ(std::string(e.what()).find(wrong), std::string::npos) << e.what();
  EXPECT_NE(e.file().find("127.0.0.1"), std::string::npos) << e.file();
  EXPECT_NE(e.file().find("***"), std::string::npos) << e.file();
}

TEST_F(PostgresStoreTest, AnUnreachableServerIsAClearError) {
  // Port 1 on the loopback: nothing listens there, the connection is refused at once.
  const auto e =
      open_error("postgresql://fathom:s3cret-word@127.0.0.1:1/" + name_, OpenMode::ReadWrite);
  EXPECT_NE(e.message().find("cannot connect"), std::string::npos) << e.message();
  EXPECT_EQ(std::string(e.what()).find("s3cret-word"), std::string::npos) << e.what();
}

TEST_F(PostgresStoreTest, AnUnknownSchemeNamesTheKnownOnes) {
  try {
    Store::open("mysql://root:pw@127.0.0.1/x");
    FAIL() << "expected an InputError";
  } catch (const fathom::InputError& e) {
    EXPECT_NE(e.message().find("postgresql://"), std::string::npos) << e.message();
    EXPECT_EQ(std::string(e.what()).find(":pw@"), std::string::npos) << e.what();
  }
}

// The server drops every connection of the store (a restart, a failover): the next write
// reconnects and lands; nothing written before is lost.
TEST_F(PostgresStoreTest, ADroppedConnectionIsReconnectedAndTheWriteLands) {
  auto store = Store::open(url_);
  const int64_t run = store.create_run(named("r"));
  store.write_metrics(run, {{1, "loss", 3.0, 1.0}});
  const std::string killed =
      ft::postgres_exec("postgres",
                        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                        " WHERE datname = '" +
                            name_ + "' AND pid <> pg_backend_pid()");
  ASSERT_EQ(killed, "1");
  store.write_metrics(run, {{2, "loss", 2.0, 1.0}});
  store.heartbeat(run, 2);
  EXPECT_EQ(store.metric_series(run, "loss").size(), 2u);
  EXPECT_EQ(store.find_run("r")->updates, 2);
}

// The database refuses connections for longer than the retry budget: the write fails with a
// clear error naming the URL (no password), the MetricWriter keeps its rows, and they all
// land once the database is back -- no metric row lost, none duplicated.
TEST_F(PostgresStoreTest, AnOutageLongerThanTheRetryBudgetLosesNoMetricRow) {
  auto store = Store::open(url_);
  const int64_t run = store.create_run(named("r"));
  const Lease lease = store.mark_running(run, "host", "cpu");
  MetricWriter writer(store, lease, /*flush_rows=*/1000, /*flush_seconds=*/3600);
  for (int step = 1; step <= 10; ++step) writer.log(step, "loss", 1.0 / step);
  writer.flush();

  setenv("FATHOM_DB_RETRY_SECONDS", "1", 1);
  ft::postgres_exec("postgres", "ALTER DATABASE \"" + name_ + "\" ALLOW_CONNECTIONS false");
  ft::postgres_exec("postgres",
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE datname = '" +
                        name_ + "' AND pid <> pg_backend_pid()");
  for (int step = 11; step <= 20; ++step) writer.log(step, "loss", 1.0 / step);
  try {
    writer.flush();
    FAIL() << "a write to an unreachable database succeeded";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("127.0.0.1"), std::string::npos) << what;
    EXPECT_NE(what.find("gave up"), std::string::npos) << what;
    EXPECT_EQ(what.find(password_), std::string::npos) << what;
  }
  EXPECT_EQ(writer.pending(), 10u);

  ft::postgres_exec("postgres", "ALTER DATABASE \"" + name_ + "\" ALLOW_CONNECTIONS true");
  writer.flush();
  EXPECT_EQ(writer.pending(), 0u);
  const auto series = store.metric_series(run, "loss");
  ASSERT_EQ(series.size(), 20u);
  for (int i = 0; i < 20; ++i) EXPECT_DOUBLE_EQ(series[i].value, 1.0 / (i + 1));
}

// COMMIT reaches the server and commits, but its reply never comes back: the server holds
// the session in a synchronous-replication wait for a standby that never connects
// (pg-test-server.sh names one; this database turns synchronous_commit on for new sessions),
// and the test then terminates that session. The store's retry must find its transaction
// committed, return the committed row's id, and not write the row a second time.
TEST_F(PostgresStoreTest, AWriteWhoseCommitReplyWasLostLandsOnce) {
  ASSERT_EQ(ft::postgres_exec("postgres", "SHOW synchronous_standby_names"),
            "fathom_test_no_standby")
      << "the test server lacks the standby name scripts/pg-test-server.sh sets";
  Store::open(url_).create_run(named("before"));  // the schema, with commits that do not wait
  const std::string database = "\"" + name_ + "\"";
  const auto lose_commit_reply = [&](auto write) {
    ft::postgres_exec("postgres", "ALTER DATABASE " + database + " SET synchronous_commit = on");
    auto pending = std::async(std::launch::async, [&] {
      auto store = Store::open(url_);
      return write(store);
    });
    std::string waiting;
    for (int i = 0; i < 400 && waiting.empty(); ++i) {
      waiting = ft::postgres_exec("postgres",
                                  "SELECT pid FROM pg_stat_activity WHERE wait_event = 'SyncRep'"
                                  " AND datname = '" +
                                      name_ + "'");
      if (waiting.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    // The reconnected session must not wait again; then drop every session of the database
    // (also when none was seen waiting, so a failure cannot hang the test).
    ft::postgres_exec("postgres", "ALTER DATABASE " + database + " RESET synchronous_commit");
    ft::postgres_exec("postgres",
                      "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                      " WHERE datname = '" +
                          name_ + "' AND pid <> pg_backend_pid()");
    EXPECT_FALSE(waiting.empty()) << "no COMMIT was held in flight";
    return pending.get();
  };

  const int64_t run = lose_commit_reply([](Store& store) { return store.create_run(named("r")); });
  auto store = Store::open(url_);
  const auto runs = store.list_runs();
  ASSERT_EQ(runs.size(), 2u) << "the run was written twice";
  ASSERT_TRUE(store.find_run("r"));
  EXPECT_EQ(store.find_run("r")->id, run);

  const int64_t analysis = lose_commit_reply([run](Store& s) {
    NewAnalysis a;
    a.run_id = run;
    a.kind = "beta";
    a.params_json = "{}";
    a.result_json = "{}";
    return s.add_analysis(a);
  });
  const auto analyses = store.list_analyses();
  ASSERT_EQ(analyses.size(), 1u) << "the analysis was written twice";
  EXPECT_EQ(analyses[0].id, analysis);
}

TEST_F(PostgresStoreTest, BusyReasonReportsALostServerAndRecovers) {
  auto store = Store::open(url_, OpenMode::ReadWrite);
  EXPECT_FALSE(store.busy_reason());
  ft::postgres_exec("postgres", "ALTER DATABASE \"" + name_ + "\" ALLOW_CONNECTIONS false");
  ft::postgres_exec("postgres",
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE datname = '" +
                        name_ + "' AND pid <> pg_backend_pid()");
  const auto why = store.busy_reason();
  ASSERT_TRUE(why);
  EXPECT_EQ(why->find(password_), std::string::npos) << *why;
  ft::postgres_exec("postgres", "ALTER DATABASE \"" + name_ + "\" ALLOW_CONNECTIONS true");
  EXPECT_TRUE(store.list_runs().empty());  // a read reconnects
  EXPECT_FALSE(store.busy_reason());
}

}  // namespace test_store_postgres
