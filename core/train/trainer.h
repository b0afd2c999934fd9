#pragma once
// One training run, start to finish: data, model, the update loop with validation,
// checkpoints and divergence detection, then test perplexity and BLEU. Every number goes to
// the run store as it is produced. Divergence is a research result (status "diverged"),
// never an exception.
#include <atomic>
#include <map>
#include <optional>
#include <string>

#include "base/config/config.h"
#include "base/util/error.h"
#include "db/store.h"

namespace fathom {

// A resume whose checkpoints cannot be read (checkpoint_last.pt and checkpoint_previous.pt).
// Thrown before the run is touched in the store: the caller leaves its status and times as
// they were (a finished run stays finished).
class UnreadableResumePoint : public InputError {
 public:
  using InputError::InputError;
};

struct TrainOptions {
  int64_t run_id = 0;         // the run's row in the store (created by the caller)
  std::string artifacts_dir;  // checkpoints and hypotheses of this run go here
  std::string cache_dir;      // shared caches (SentencePiece models)
  bool resume = false;        // continue from artifacts_dir/checkpoint_last.pt if present
  bool progress = true;       // terminal progress bar
  // Set (from a signal handler) to stop at the next update boundary with a checkpoint of
  // exactly the updates done; the outcome is then "stopped". Null: never asked.
  const std::atomic<bool>* stop_requested = nullptr;
};

struct TrainOutcome {
  std::string status;                    // finished | diverged | stopped (stop_requested)
  std::optional<int64_t> diverged_step;  // the update at which divergence was detected
  std::string reason;                    // why it diverged
  int64_t updates = 0;
  std::map<std::string, double> final_metrics;
};

// Runs the configured training. Marks the run running/finished/diverged in `store`.
// Throws for errors (bad input, I/O); the caller records those as "failed".
TrainOutcome train_run(const RunConfig& config, db::Store& store, const TrainOptions& options);

}  // namespace fathom
