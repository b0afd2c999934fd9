#pragma once
// Shared by the fuzz targets (fuzz/*.cpp): what counts as a finding, and scratch files.
//
// Bad input must get a fathom::InputError naming the file (and line and field where there is
// one); that is the expected answer and is swallowed. Anything else that escapes -- a
// YAML::Exception, std::out_of_range from a stray .at(), a bare std::runtime_error -- is an
// error message that names nothing, and is left to escape: libFuzzer reports it as a crash
// (uncaught exception -> abort) and keeps the input. So are sanitizer reports, hangs and
// failed invariants (FUZZ_CHECK).
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "base/util/error.h"

namespace fathom::fuzz {

template <class Body>
void accept_input_errors(Body&& body) {
  try {
    body();
  } catch (const InputError&) {
  }
}

// An invariant of the code under test; a failure aborts with the condition.
#define FUZZ_CHECK(cond)                                                                 \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      std::fprintf(stderr, "%s:%d: FUZZ_CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                      \
    }                                                                                    \
  } while (0)

// Removes the scratch files (and a SQLite store's -wal, -shm and -journal) when the process
// exits normally, so replays in the test suite leave nothing in /tmp.
inline void remove_at_exit(const std::filesystem::path& path) {
  static std::vector<std::filesystem::path> paths;
  static const bool registered = [] {
    std::atexit([] {
      std::error_code ec;
      for (const auto& p : paths)
        for (const char* tail : {"", "-wal", "-shm", "-journal"})
          std::filesystem::remove(p.string() + tail, ec);
    });
    return true;
  }();
  (void)registered;
  for (const auto& p : paths)
    if (p == path) return;
  paths.push_back(path);
}

// A file of this process's own under the temp directory, holding `bytes`; its name ends in
// `suffix`. Rewritten for every input (the readers under test take paths).
inline std::string scratch_file(const uint8_t* data, size_t size, const std::string& suffix) {
  const auto path =
      std::filesystem::temp_directory_path() / ("fathom-fuzz-" + std::to_string(getpid()) + suffix);
  remove_at_exit(path);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path.string();
}

}  // namespace fathom::fuzz
