#pragma once
// The uninterrupted run of a sweep that fault tests compare their interrupted sweep with, made
// once per fathom binary and shared by every test process that asks for the same sweep. ctest
// runs each test in a process of its own, and the fault campaign's twelve tests each ran the
// same reference (13 s of two cores each): a third of the campaign's time. Training is
// deterministic given a seed on the CPU, so one run of the same config with the same binary is
// the same reference; the key is the binary's size and modification time with the texts.
// Header-only.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "base/util/content_hash.h"
#include "base/util/file_lock.h"
#include "tests/support/fathom_cli.h"
#include "tests/support/processes.h"

namespace fathom::testing {

// Where a shared reference lies: its store and the name of its sweep there.
struct SweepReference {
  std::string store;
  std::string sweep;
};

namespace shared_reference_detail {

// The binary's size and modification time: a rebuilt fathom makes new references.
inline std::string binary_stamp(const std::filesystem::path& binary) {
  struct stat st {};
  if (stat(binary.c_str(), &st) != 0) throw std::runtime_error("no fathom at " + binary.string());
  return std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

// References another binary made: removed, except one a test is making now (its lock held).
inline void remove_stale(const std::filesystem::path& root, const std::string& stamp) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(root, ec)) {
    if (!entry.is_directory() || read_text(entry.path() / "stamp") == stamp) continue;
    const FileLock lock(entry.path().string() + ".lock", FileLock::Mode::kTry);
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
  ContentHash key;
  for (const std::string& part : {stamp, base_yaml, sweep_body}) key.add_field(part);
  const fs::path dir = root / key.hex();
  const SweepReference made{(dir / "runs.db").string(), "reference"};
  const FileLock lock(dir.string() + ".lock", FileLock::Mode::kWait);
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
                             read_text(log));
  std::ofstream(dir / "done") << "";
  return made;
}

}  // namespace fathom::testing
