#pragma once
// A request to stop training -- Ctrl+C, SIGTERM, SIGHUP, Slurm's warning before a time limit
// (TrainOptions::stop_requested) -- served in every phase of a run: at the next update
// boundary inside the update loop (with a checkpoint), and between the steps of the phases
// around it (loading data, building the model, the final evaluation), where this is thrown
// and the trainer ends the session as "stopped" with the resume point it already has.
#include <atomic>
#include <stdexcept>
#include <string>

namespace fathom {

class StopRequested : public std::runtime_error {
 public:
  explicit StopRequested(const std::string& during) : std::runtime_error(during) {}
};

// `during`: what was interrupted ("the final evaluation"), for the run's record.
inline void throw_if_stop_requested(const std::atomic<bool>* stop, const std::string& during) {
  if (stop && stop->load()) throw StopRequested(during);
}

}  // namespace fathom
