#include "cli/stop_signals.h"

#include <signal.h>

#include <atomic>
#include <initializer_list>

namespace fathom::cli {
namespace {

std::atomic<bool> requested{false};
std::atomic<int> which{0};

void on_stop_signal(int sig) {  // async-signal-safe: lock-free atomics only
  which = sig;
  requested = true;
}

}  // namespace

void install_stop_signals() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  // SIGHUP: the terminal of a `fathom train` closed -- stop with a checkpoint, as for Ctrl+C.
  for (int sig : {SIGUSR2, SIGTERM, SIGINT, SIGHUP}) sigaction(sig, &action, nullptr);
}

const std::atomic<bool>& stop_requested() { return requested; }

int stop_signal() { return which.load(); }

}  // namespace fathom::cli
