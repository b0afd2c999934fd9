#pragma once
// Which files a SQLite connection reads: the store and, in WAL mode, its -shm index, as
// (device, inode) when the connection opened them. SQLite keeps its readers safe with POSIX
// locks, and POSIX drops every lock a process holds on a file as soon as that process closes
// any descriptor of the file -- a file dialog sniffing the store's type (QMimeDatabase reads
// its first bytes) is enough. The next writer that closes then believes it is the last
// connection and deletes -wal and -shm; the reader keeps the deleted ones and sees a frozen
// or inconsistent store ("database disk image is malformed") until it reconnects. Comparing
// these identities with the files now on disk tells that this happened.
#include <optional>
#include <string>

#include <sys/types.h>

namespace fathom::db {

struct FileIdentity {
  dev_t device = 0;
  ino_t inode = 0;
  bool operator==(const FileIdentity& o) const { return device == o.device && inode == o.inode; }
  bool operator!=(const FileIdentity& o) const { return !(*this == o); }
};

// The file at `path` now; nullopt when there is none.
std::optional<FileIdentity> identify_file(const std::string& path);

class SqliteFileIdentity {
 public:
  // Taken right after the connection's first read, while it holds the files open.
  explicit SqliteFileIdentity(const std::string& store_path);
  // True when the store file or the -shm index this connection reads is no longer the one on
  // disk (deleted or replaced): its reads may miss every later commit.
  bool replaced() const;

 private:
  std::string path_;
  std::optional<FileIdentity> store_;
  mutable std::optional<FileIdentity> shm_;  // taken later if the store was not in WAL mode yet
};

}  // namespace fathom::db
