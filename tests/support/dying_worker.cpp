// A stand-in for `fathom worker` that is slow to reap once dead, as a SIGKILLed worker with
// many threads is: its main thread exits at once -- the process's leader is then a zombie,
// gone to a liveness check -- while a second thread lives on for FATHOM_DYING_WORKER_MS
// (default 3000) ms and then kills the process with SIGKILL. Only then can its parent reap it
// and learn the signal. For tests/base/test_local_worker_ends.cpp; it ignores its arguments
// (the launcher's `worker --run N ...`).
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>

namespace {

void* linger_then_die(void*) {
  const char* ms = std::getenv("FATHOM_DYING_WORKER_MS");
  usleep(static_cast<useconds_t>((ms ? std::atoi(ms) : 3000) * 1000));
  kill(getpid(), SIGKILL);
  return nullptr;
}

}  // namespace

int main() {
  pthread_t lingering;
  if (pthread_create(&lingering, nullptr, linger_then_die, nullptr) != 0) return 2;
  pthread_exit(nullptr);  // the leader alone: the process lives on in `lingering`
}
