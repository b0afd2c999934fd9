#include "core/train/trainer.h"

#include "base/util/malloc_setup.h"
#include "core/train/device.h"
#include "core/train/precision.h"
#include "core/train/threads.h"
#include "core/train/training_session.h"

namespace fathom {

TrainOutcome train_run(const RunConfig& config, db::Store& store, const TrainOptions& options) {
  TrainingSession session(config, &store, options);  // refuses a bad precision before any work
  configure_threads(threads_per_process(config.train.threads, config.train.processes),
                    bf16_matmuls_on_cpu(session.precision().autocast));
  keep_freed_memory();  // each step re-allocates the same activations: keep their pages
  session.hold_unless_resuming();
  if (auto stopped = session.stopped_before("loading the data")) return *stopped;
  if (auto stopped = session.load_data()) return *stopped;
  if (auto stopped = session.stopped_before("building the model")) return *stopped;
  session.build_model();
  session.resume();
  session.start_loop();
  while (session.updates_left()) {
    if (auto stopped = session.serve_stop_request()) return *stopped;
    const auto update = session.one_update();
    if (!update) return *session.serve_stop_request(/*abandoned=*/true);
    if (auto ended = session.after_update(*update)) return *ended;  // diverged
  }
  return session.finish();
}

TrainOutcome follow_run(const RunConfig& config, const TrainOptions& options) {
  TrainingSession session(config, nullptr, options);
  configure_threads(threads_per_process(config.train.threads, config.train.processes),
                    bf16_matmuls_on_cpu(session.precision().autocast));
  keep_freed_memory();
  if (auto stopped = session.load_data()) return *stopped;
  session.build_model();
  session.resume();  // rank 0's state
  session.start_loop();
  while (session.updates_left()) {
    if (auto stopped = session.serve_stop_request()) return *stopped;
    const auto update = session.one_update();
    if (!update) return *session.serve_stop_request(/*abandoned=*/true);
    if (auto ended = session.after_update(*update)) return *ended;  // diverged
  }
  return session.follower_done();
}

}  // namespace fathom
