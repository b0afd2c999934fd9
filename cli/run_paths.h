#pragma once
// Where a store keeps files beside its database: per-run artifacts and shared caches.
//   <db dir>/<db stem>.artifacts/run-<id>/   checkpoints, hypotheses
//   <db dir>/<db stem>.cache/                SentencePiece models (keyed by corpus+settings)
#include <cstdint>
#include <string>

namespace fathom::cli {

std::string artifacts_dir(const std::string& db_path, int64_t run_id);
std::string cache_dir(const std::string& db_path);

}  // namespace fathom::cli
