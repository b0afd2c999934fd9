#pragma once
// The PostgreSQL schema, step for step the same versions as the SQLite one (migrations.h):
// step i takes version i to i+1, append-only. The version lives in the table fathom_meta
// (key 'schema_version'), beside key 'application' = 'fathom' that marks the database as a
// Fathom run store.
#include <vector>

#include "db/migrations.h"

namespace fathom::db {

const std::vector<Migration>& postgres_migrations();

}  // namespace fathom::db
