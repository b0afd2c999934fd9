#include "db/sqlite_write_lock.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace fathom::db {

std::optional<long long> sqlite_write_lock_holder(const std::string& db_path) {
  struct stat shm {};
  if (::stat((db_path + "-shm").c_str(), &shm) != 0) return std::nullopt;
  // /proc/locks names a file as MAJOR:MINOR:INODE, the device numbers in hex (fs/locks.c).
  char file_id[64];
  std::snprintf(file_id, sizeof file_id, "%02x:%02x:%llu", major(shm.st_dev), minor(shm.st_dev),
                static_cast<unsigned long long>(shm.st_ino));
  std::ifstream locks("/proc/locks");
  // "12: POSIX  ADVISORY  WRITE 4711 08:01:1234 120 120"; a lock someone waits for has "->".
  for (std::string line; std::getline(locks, line);) {
    std::istringstream fields(line);
    std::string number, kind, mode, access, pid, file, start, end;
    fields >> number >> kind;
    if (kind == "->") fields >> kind;
    fields >> mode >> access >> pid >> file >> start >> end;
    if (kind != "POSIX" || access != "WRITE" || file != file_id) continue;
    try {
      const long long first = std::stoll(start);
      const bool to_eof = end == "EOF";
      if (first > kSqliteWalWriteLockByte || (!to_eof && std::stoll(end) < kSqliteWalWriteLockByte))
        continue;
      if (line.find("->") != std::string::npos) continue;  // waiting for it, not holding it
      if (std::stoll(pid) == ::getpid()) continue;         // ours: a transaction this process is in
      return std::stoll(pid);
    } catch (const std::exception&) {
      continue;
    }
  }
  return std::nullopt;
}

}  // namespace fathom::db
