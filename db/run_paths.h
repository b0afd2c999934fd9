#pragma once
// Where a store keeps files: per-run artifacts (checkpoints, hypotheses, worker logs) and
// shared caches (SentencePiece models). The one rule for the CLI, the scheduler's workers and
// the desktop app.
//   --artifacts DIR / $FATHOM_ARTIFACTS given:  DIR/run-<id>/, DIR/cache/ -- unless DIR is the
//                                               SQLite store's own <db stem>.artifacts (as the
//                                               launchers name it to workers): as below
//   a SQLite store, none given:                 <db dir>/<db stem>.artifacts/run-<id>/,
//                                               <db dir>/<db stem>.cache/
//   a server store (PostgreSQL), none given:    an InputError saying what to pass -- workers on
//                                               several machines need one shared directory.
#include <cstdint>
#include <string>

#include "db/store_url.h"

namespace fathom::db {

struct StorePaths {
  std::string artifacts_root;  // holds run-<id>/
  std::string cache_root;
  std::string run_dir(int64_t run_id) const;
};

// `artifacts`: the --artifacts value ("" = $FATHOM_ARTIFACTS, else the default above).
StorePaths store_paths(const std::string& db_location, const std::string& artifacts = "");

// Where versions before 2026-12-04 put the cache that `cache_root` now names: a SQLite store's
// sweep workers, handed <db stem>.artifacts by name, prepared into <db stem>.artifacts/cache
// while `fathom analyze` and `train` used <db stem>.cache. For "<dir>/<stem>.cache" that is
// "<dir>/<stem>.artifacts/cache"; for any other folder "" (none). No I/O: core/data looks there
// only for an entry its own cache lacks (core/data/earlier_cache.h).
std::string earlier_cache_root(const std::string& cache_root);

// The environment variable that names the artifacts root, like FATHOM_DB names the store.
constexpr const char* kArtifactsEnv = "FATHOM_ARTIFACTS";

}  // namespace fathom::db
