#include "core/data/earlier_cache.h"

#include <cstdio>
#include <system_error>

#include "db/run_paths.h"

namespace fathom {
namespace fs = std::filesystem;

bool adopt_earlier_entry(const fs::path& root, const std::string& key, const char* whole_marker) {
  const std::string earlier_root = db::earlier_cache_root(root.string());
  if (earlier_root.empty()) return false;
  const fs::path earlier = fs::path(earlier_root) / key, entry = root / key;
  std::error_code ec;
  if (!fs::exists(earlier / whole_marker, ec) || fs::exists(entry / whole_marker, ec)) return false;
  fs::create_directories(root, ec);
  ec.clear();
  // rename(2): atomic on one file system, and a reader that mapped the earlier entry's files
  // keeps its pages.
  fs::rename(earlier, entry, ec);
  if (ec) {
    std::fprintf(stderr, "note: %s could not be moved into %s (%s); preparing it again\n",
                 earlier.c_str(), root.c_str(), ec.message().c_str());
    return false;
  }
  std::fprintf(stderr,
               "moved %s from %s (where sweeps' workers kept it before 2026-12-04) into %s\n",
               key.c_str(), earlier_root.c_str(), root.c_str());
  return true;
}

}  // namespace fathom
