#pragma once
// Where a store keeps files beside its database: per-run artifacts and shared caches. The one
// rule for the CLI, the scheduler's workers and the desktop app.
//   <db dir>/<db stem>.artifacts/run-<id>/   checkpoints, hypotheses
//   <db dir>/<db stem>.cache/                SentencePiece models (keyed by corpus+settings)
#include <cstdint>
#include <string>

namespace fathom::db {

std::string artifacts_dir(const std::string& db_path, int64_t run_id);
std::string cache_dir(const std::string& db_path);

}  // namespace fathom::db
