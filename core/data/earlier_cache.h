#pragma once
// Cache entries found where an earlier version kept this cache (db/run_paths.h,
// earlier_cache_root: until 2026-12-04 a SQLite store's sweep workers prepared into
// <db stem>.artifacts/cache, its analyses into <db stem>.cache). Moved in on first need instead
// of prepared again: a WMT14 En-Fr corpus takes about 25 minutes to prepare on a worker and its
// entry holds gigabytes, which would otherwise sit twice on the disk.
#include <filesystem>
#include <string>

namespace fathom {

// Moves the entry `key` from `root`'s earlier folder into `root` where the earlier folder holds
// it whole (its `whole_marker` file present: the last file an entry gets) and `root` has none,
// saying so on stderr. True when this call moved it. A move that cannot be made (another file
// system, another process placing the same entry first) leaves both as they are and returns
// false: the caller prepares as before. The caller holds the entry's lock where it has one.
bool adopt_earlier_entry(const std::filesystem::path& root, const std::string& key,
                         const char* whole_marker);

}  // namespace fathom
