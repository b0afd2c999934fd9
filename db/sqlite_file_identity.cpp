#include "db/sqlite_file_identity.h"

#include <sys/stat.h>

namespace fathom::db {

std::optional<FileIdentity> identify_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileIdentity{st.st_dev, st.st_ino};
}

SqliteFileIdentity::SqliteFileIdentity(const std::string& store_path)
    : path_(store_path),
      store_(identify_file(store_path)),
      shm_(identify_file(store_path + "-shm")) {}

bool SqliteFileIdentity::replaced() const {
  if (!store_) return false;  // an immutable or in-memory store: nothing on disk to compare
  if (identify_file(path_) != store_) return true;
  const std::optional<FileIdentity> shm = identify_file(path_ + "-shm");
  if (!shm_) {
    // Opened before any writer turned on WAL mode: the first -shm seen is the connection's own
    // (a reader opens it as soon as it reads a WAL store, and keeps it).
    shm_ = shm;
    return false;
  }
  return shm != shm_;
}

}  // namespace fathom::db
