#pragma once
// One training run, start to finish: data, model, the update loop with validation,
// checkpoints and divergence detection, then test perplexity and BLEU. Every number goes to
// the run store as it is produced. Divergence is a research result (status "diverged"),
// never an exception.
#include <atomic>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "base/config/config.h"
#include "base/util/error.h"
#include "db/heartbeat.h"
#include "db/store.h"

namespace fathom {

class RankGroup;

// A resume whose checkpoints cannot be read (the recorded resume point and the one before it).
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
  bool resume = false;        // continue from the run's recorded resume point, if it has one
  bool progress = true;       // terminal progress bar
  // Set (from a signal handler) to stop: at the next update boundary with a checkpoint of
  // exactly the updates done, or between the steps of the phases around the update loop
  // (core/train/stop_request.h); the outcome is then "stopped". Null: never asked.
  const std::atomic<bool>* stop_requested = nullptr;
  // The run's lease when the caller holds it already (a worker: its launcher claimed the
  // run). Otherwise the trainer takes the run (Store::mark_running, a new lease generation
  // that fences off any earlier holder) -- a resumed run only once its checkpoint loaded.
  std::optional<db::Lease> lease;
  // Called once the run is held, before anything is written for it: the caller learns the
  // lease it records the run's end with if the trainer throws (and may write more, fenced).
  std::function<void(const db::Lease&)> on_hold;
  // Seconds between the heartbeat thread's beats while the run is held (db/heartbeat.h);
  // 0: none. A refused beat (the run was taken from this holder) stops the trainer at its next
  // update with LeaseLost.
  double heartbeat_s = db::HeartbeatThread::kDefaultInterval;
  // A data-parallel run (docs/distributed.md): this process's rank among train.processes,
  // connected. Null: one process. Rank 0 calls train_run, the others follow_run.
  RankGroup* ranks = nullptr;
};

struct TrainOutcome {
  // A training attempt that stopped on request (stop_requested) rather than ending the run: the
  // caller records what becomes of the run (cli/settle_outcome.h).
  static inline const std::string kStopped = "stopped";
  std::string status;                    // finished | diverged | kStopped (stop_requested)
  std::optional<int64_t> diverged_step;  // the update at which divergence was detected
  std::string reason;                    // why it diverged
  int64_t updates = 0;
  std::map<std::string, double> final_metrics;
  // For "stopped": "" when it stopped at an update boundary with a checkpoint of exactly
  // `updates`; else what the stop interrupted ("loading the data", "the final evaluation")
  // -- the run continues from its last recorded checkpoint.
  std::string stopped_during;
  // For "stopped" inside an update (core/model/stop_point.h): that update, abandoned, nothing of
  // it applied; the checkpoint is of `updates`, as for a stop between updates. 0: none.
  int64_t abandoned_update = 0;
  // train.cuda_graphs: this session's batches replayed as CUDA graphs (the rest ran eagerly).
  int64_t graphed_batches = 0;
};

// Runs the configured training as the run's holder (db/lease.h). Marks the run
// running/finished/diverged in `store`. Throws for errors (bad input, I/O; the caller records
// those as "failed" under the lease it was given or told of), and db::LeaseLost once the run
// is no longer this holder's (nothing more is written then).
TrainOutcome train_run(const RunConfig& config, db::Store& store, const TrainOptions& options);

// A data-parallel run's rank other than 0 (options.ranks): trains its share of every update of
// rank 0's run and writes nothing anywhere; it needs options.cache_dir, stop_requested and
// ranks only. Ends with the run's updates ("finished": rank 0 records the run's end), where
// rank 0 stops or at the update rank 0 finds diverged; throws RankLost when a rank dies.
TrainOutcome follow_run(const RunConfig& config, const TrainOptions& options);

}  // namespace fathom
