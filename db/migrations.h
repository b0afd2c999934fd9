#pragma once
// Schema versions. The version lives in `PRAGMA user_version`; migration i (0-based) takes
// version i to i+1. Migrations are append-only: never edit a released step, add a new one.
// See docs/schema.md for the policy and the resulting schema.
#include <string>
#include <vector>

#include "db/sqlite_handle.h"

namespace fathom::db {

// Marks the file as a Fathom run store (`PRAGMA application_id`, the ASCII bytes "FTHM").
constexpr int kApplicationId = 0x4654484D;

struct Migration {
  const char* summary;  // one line, for docs and error messages
  const char* sql;      // statements run inside the step's transaction
};

const std::vector<Migration>& migrations();
int latest_schema_version();

// The version recorded in the file, after checking the file is a Fathom store (or a fresh,
// empty SQLite file) that this build can read. Throws InputError naming the file otherwise.
// Reads only: safe to call before anything is allowed to modify the file.
int check_schema(const Connection& db);

// For a store at latest_schema_version(): that every table has the columns the migrations
// create, name and type, in order. A file damaged inside its schema (a flipped byte in a
// column name, found by fuzzing) would otherwise open and fail at its first query with
// "no such column"; this names the file and what is wrong, and reads only.
void check_tables(const Connection& db);

// Brings the file to latest_schema_version(): every missing step in one BEGIN IMMEDIATE
// transaction, so readers never see an intermediate version. Safe when several processes
// open a fresh file at once: the version is re-read under the write lock, so each step is
// applied exactly once. A step that fails (a damaged file) rolls back the whole upgrade and is
// reported as an InputError naming the file and the version.
void migrate(const Connection& db);

}  // namespace fathom::db
