#pragma once
// Removing a run whole: its rows in the store (Store::delete_run: metrics, tags, artifacts,
// analyses; refused for a running run) and then its artifact directory. `fathom delete`, and a
// sweep that cannot be queued or launched whole taking back the runs it recorded.
#include <cstdint>
#include <string>

#include "db/run_paths.h"
#include "db/store.h"

namespace fathom::db {

// Deletes the run's rows, then its directory; returns "" or, when the directory could not be
// removed, why ("could not remove DIR: ..."). Rows go first: a failure after them leaves stray
// files, never a run without its checkpoints. Store errors throw.
std::string delete_run_and_files(Store& store, const StorePaths& paths, int64_t run);

}  // namespace fathom::db
