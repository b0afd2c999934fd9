#pragma once
// SIGINT, SIGTERM, SIGHUP and SIGUSR2 as a request to stop training at the next update boundary
// (TrainOptions::stop_requested), for `fathom train` and `fathom worker`: the trainer writes a
// checkpoint of exactly the updates done, and the command records how the run stopped.
#include <atomic>

namespace fathom::cli {

// Installs the handlers (once); later signals only set the flag again.
void install_stop_signals();
// Set by the handlers; pass it to TrainOptions::stop_requested.
const std::atomic<bool>& stop_requested();
// The signal that asked to stop; 0 when none did.
int stop_signal();

}  // namespace fathom::cli
