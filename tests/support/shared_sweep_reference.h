#pragma once
// The uninterrupted run of a sweep that fault tests compare their interrupted sweep with, made
// once per fathom binary and shared by every test process that asks for the same sweep. ctest
// runs each test in a process of its own, and the fault campaign's twelve tests each ran the
// same reference (13 s of two cores each): a third of the campaign's time. Training is
// deterministic given a seed on the CPU, so one run of the same config with the same binary is
// the same reference; the key is the binary's size and modification time with the texts.
// Header-only.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "tests/support/fathom_cli.h"
#include "tests/support/processes.h"

namespace fathom::testing {

// Where a shared reference lies: its store and the name of its sweep there.
struct SweepReference {
  std::string store;
  std::string sweep;
};

namespace shared_reference_detail {

// FNV-1a, 64 bits: a name that is the same in every process (std::hash need not be).
inline std::string fnv1a_hex(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (const unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

// The binary's size and modification time: a rebuilt fathom makes new references.
inline std::string binary_stamp(const std::filesystem::path& binary) {
  struct stat st {};
  if (stat(binary.c_str(), &st) != 0) throw std::runtime_error("no fathom at " + binary.string());
  return std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

inline std::string read_all(const std::filesystem::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// An exclusive flock on `path` for the life of the object; with `wait` false, held() says
// whether it was free.
class FileLock {
 public:
  FileLock(const std::filesystem::path& path, bool wait) {
    fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ >= 0 && flock(fd_, wait ? LOCK_EX : LOCK_EX | LOCK_NB) != 0) {
      close(fd_);
      fd_ = -1;
    }
  }
  ~FileLock() {
    if (fd_ >= 0) close(fd_);  // the lock goes with the descriptor
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  bool held() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// References another binary made: removed, except one a test is making now (its lock held).
inline void remove_stale(const std::filesystem::path& root, const std::string& stamp) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(root, ec)) {
    if (!entry.is_directory() || read_all(entry.path() / "stamp") == stamp) continue;
    const FileLock lock(entry.path().string() + ".lock", /*wait=*/false);
    if (!lock.held()) continue;
    std::filesystem::remove_all(entry.path(), ec);
    std::filesystem::remove(entry.path().string() + ".lock", ec);
  }
}

}  // namespace shared_reference_detail

// The reference of the sweep `sweep_body` (a sweep file's text without its `name:` line, its
// `base: base.yaml` being `base_yaml`), run uninterrupted with `fathom sweep --jobs 2` into a
// SQLite store under build/tests/shared-references/. The first caller runs it; a caller that
// comes while it runs waits for it (a file lock), later ones find it made. Throws, with the
// sweep's output, when the sweep fails.
inline SweepReference shared_sweep_reference(const std::string& base_yaml,
                                             const std::string& sweep_body) {
  namespace fs = std::filesystem;
  namespace d = shared_reference_detail;
  const fs::path binary = built_fathom_binary();
  const std::string stamp = d::binary_stamp(binary);
  const fs::path root = binary.parent_path() / "tests" / "shared-references";
  fs::create_directories(root);
  const fs::path dir = root / d::fnv1a_hex(stamp + "\n" + base_yaml + "\n" + sweep_body);
  const SweepReference made{(dir / "runs.db").string(), "reference"};
  const d::FileLock lock(dir.string() + ".lock", /*wait=*/true);
  if (fs::exists(dir / "done")) return made;
  d::remove_stale(root, stamp);
  fs::remove_all(dir);  // a run that was cut short leaves no "done"
  fs::create_directories(dir);
  std::ofstream(dir / "stamp") << stamp;
  std::ofstream(dir / "base.yaml") << base_yaml;
  std::ofstream(dir / "reference.yaml") << "name: " << made.sweep << "\n" << sweep_body;
  const fs::path log = dir / "reference.log";
  const int exit = wait_exit(spawn(
      {binary.string(), "sweep", (dir / "reference.yaml").string(), "--jobs", "2", "--no-progress"},
      {"FATHOM_DB=" + made.store, "FATHOM_ARTIFACTS=" + (dir / "artifacts").string()},
      log.string()));
  if (exit != 0)
    throw std::runtime_error("the reference sweep ended with " + std::to_string(exit) + ":\n" +
                             d::read_all(log));
  std::ofstream(dir / "done") << "";
  return made;
}

}  // namespace fathom::testing
