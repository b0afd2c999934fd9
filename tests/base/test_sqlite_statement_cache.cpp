// A connection's prepared statements kept for reuse (db/sqlite_statement_cache.h): one statement
// a text, given back reset -- no read left open, no bindings left -- also after a callback
// threw or a query stopped half-way; a query inside another's use of the same text gets its
// own; at most kMaxStatements texts kept.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <stdexcept>
#include <string>

#include "db/sqlite_handle.h"
#include "db/sqlite_statement_cache.h"
#include "tests/support/temp_dir.h"

namespace test_sqlite_statement_cache {
using fathom::db::Connection;
using fathom::db::Statement;
using fathom::db::StatementCache;

// The connection's statements that are mid-query (sqlite3_stmt_busy): a read left open.
int busy_statements(const Connection& db) {
  int busy = 0;
  for (sqlite3_stmt* s = sqlite3_next_stmt(db.get(), nullptr); s;
       s = sqlite3_next_stmt(db.get(), s))
    busy += sqlite3_stmt_busy(s) != 0;
  return busy;
}

int statements(const Connection& db) {
  int n = 0;
  for (sqlite3_stmt* s = sqlite3_next_stmt(db.get(), nullptr); s;
       s = sqlite3_next_stmt(db.get(), s))
    ++n;
  return n;
}

struct Fixture {
  fathom::testing::TempDir dir;
  Connection db{(dir.path() / "c.db").string(), SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE};
  Fixture() { db.exec("CREATE TABLE t(x INTEGER); INSERT INTO t VALUES (1), (2), (3);"); }
};

TEST(SqliteStatementCache, ATextIsPreparedOnceAndGivenBackResetWithoutItsBindings) {
  Fixture f;
  StatementCache cache(f.db);
  const Statement* first = nullptr;
  {
    const StatementCache::Use use = cache.take("SELECT ?");
    first = &*use;
    (*use).bind(1, int64_t{7});
    ASSERT_TRUE((*use).step());
    EXPECT_EQ((*use).int64(0), 7);
    EXPECT_EQ(busy_statements(f.db), 1);
  }
  EXPECT_EQ(busy_statements(f.db), 0);
  const StatementCache::Use again = cache.take("SELECT ?");
  EXPECT_EQ(&*again, first);
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(statements(f.db), 1);
  ASSERT_TRUE((*again).step());
  EXPECT_TRUE((*again).is_null(0));  // 7 was cleared
}

TEST(SqliteStatementCache, AQueryStoppedHalfWayOrByAThrowLeavesNoReadOpen) {
  Fixture f;
  StatementCache cache(f.db);
  {
    const StatementCache::Use use = cache.take("SELECT x FROM t ORDER BY x");
    ASSERT_TRUE((*use).step());  // one row of three
  }
  EXPECT_EQ(busy_statements(f.db), 0);
  EXPECT_THROW(
      {
        const StatementCache::Use use = cache.take("SELECT x FROM t ORDER BY x");
        while ((*use).step())
          if ((*use).int64(0) == 2) throw std::runtime_error("a row callback threw");
      },
      std::runtime_error);
  EXPECT_EQ(busy_statements(f.db), 0);
  // And the statement reads from the start again.
  const StatementCache::Use use = cache.take("SELECT x FROM t ORDER BY x");
  ASSERT_TRUE((*use).step());
  EXPECT_EQ((*use).int64(0), 1);
}

TEST(SqliteStatementCache, TheSameTextInsideItsOwnUseGetsAStatementOfItsOwn) {
  Fixture f;
  StatementCache cache(f.db);
  const std::string sql = "SELECT x FROM t WHERE x >= ? ORDER BY x";
  const StatementCache::Use outer = cache.take(sql);
  (*outer).bind(1, int64_t{2});
  ASSERT_TRUE((*outer).step());
  EXPECT_EQ((*outer).int64(0), 2);
  {
    const StatementCache::Use inner = cache.take(sql);
    EXPECT_NE(&*inner, &*outer);
    (*inner).bind(1, int64_t{1});
    int rows = 0;
    while ((*inner).step()) ++rows;
    EXPECT_EQ(rows, 3);
  }
  EXPECT_EQ(statements(f.db), 1);  // the inner one is finalized, not kept
  ASSERT_TRUE((*outer).step());    // the outer query goes on where it was
  EXPECT_EQ((*outer).int64(0), 3);
}

TEST(SqliteStatementCache, AtMostItsLimitOfTextsIsKept) {
  Fixture f;
  StatementCache cache(f.db);
  const StatementCache::Use held = cache.take("SELECT 0");
  for (int i = 1; i <= static_cast<int>(StatementCache::kMaxStatements) + 10; ++i) {
    const StatementCache::Use use = cache.take("SELECT " + std::to_string(i));
    ASSERT_TRUE((*use).step());
    EXPECT_EQ((*use).int64(0), i);
    EXPECT_LE(cache.size(), StatementCache::kMaxStatements);
  }
  EXPECT_EQ(statements(f.db), static_cast<int>(cache.size()));
  ASSERT_TRUE((*held).step());  // the one in use all along was kept
  EXPECT_EQ((*held).int64(0), 0);
}

TEST(SqliteStatementCache, ABadTextThrowsAndKeepsNothing) {
  Fixture f;
  StatementCache cache(f.db);
  EXPECT_ANY_THROW(cache.take("SELEC nothing"));
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(statements(f.db), 0);
}

}  // namespace test_sqlite_statement_cache
