#pragma once
// An exclusive flock(2) on a file (created if missing) for the life of the object: how
// processes of one machine agree that one of them makes a shared thing (a fetched corpus, a
// test reference) while the others wait or pass. The lock goes with the descriptor, also when
// the process dies.
#include <filesystem>

namespace fathom {

class FileLock {
 public:
  enum class Mode { kWait, kTry };  // wait for the holder, or give up at once
  FileLock(const std::filesystem::path& path, Mode mode);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  // False when the file could not be opened or (kTry) another process holds the lock.
  bool held() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// Whether another open file description holds an flock(2) on `path` now -- a file or a folder,
// opened read-only and never created (false where it does not exist). A probe: where nobody
// holds it, it takes the lock and drops it at once.
bool locked_elsewhere(const std::filesystem::path& path);

}  // namespace fathom
