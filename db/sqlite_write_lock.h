#pragma once
// Who holds a SQLite store's write lock. In WAL mode one connection at a time writes, holding
// an exclusive POSIX lock on byte 120 of the -shm file (SQLite's WAL_WRITE_LOCK: the lock
// bytes start at offset 120 of the shared-memory index, wal.c and os_unix.c); every other
// writer waits on it. A process frozen inside a write transaction (SIGSTOP, a hung disk) thus
// stops every writer on the machine, heartbeats included -- the scheduler asks who holds it
// (experiments/write_lock_watch.h).
//
// Read from /proc/locks, never by opening the -shm file: closing any descriptor of a file drops
// all of this process's POSIX locks on it, those of its own SQLite connections too.
#include <optional>
#include <string>

namespace fathom::db {

// The pid of another process on this host holding the write lock of the SQLite store
// `db_path`; nullopt when none does, or it cannot be told (no -shm file, no /proc/locks).
std::optional<long long> sqlite_write_lock_holder(const std::string& db_path);

// The lock byte, exposed for tests that take the lock by hand.
constexpr long long kSqliteWalWriteLockByte = 120;

}  // namespace fathom::db
