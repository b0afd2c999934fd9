#pragma once
// Fencing: a run is written only by the worker that holds it. Every claim of a run (a
// launcher's claim_next_run, `fathom train` taking it with mark_running) and every requeue
// gives the run a new lease generation (runs.lease). The holder's writes carry its Lease and
// are accepted only while that generation is the run's current one and the run is running,
// checked in the same transaction as the write on every backend. So a worker declared lost
// -- frozen, partitioned from the store, on a node that came back -- can never change a run
// that was since finished, cancelled, requeued or taken by another worker: its first write
// after that throws LeaseLost and writes nothing (docs/reliability.md).
#include <cstdint>
#include <stdexcept>
#include <string>

namespace fathom::db {

struct Lease {
  int64_t run = 0;
  int64_t generation = 0;  // runs.lease when this holder took the run
};

// A holder's write refused: the run is no longer its to write. The message says what the run
// is now (status, generation) so a worker's log explains why it stopped.
class LeaseLost : public std::runtime_error {
 public:
  LeaseLost(const Lease& lease, const std::string& status_now, int64_t generation_now);
  const Lease& lease() const { return lease_; }
  const std::string& status_now() const { return status_now_; }
  int64_t generation_now() const { return generation_now_; }

 private:
  Lease lease_;
  std::string status_now_;
  int64_t generation_now_;
};

}  // namespace fathom::db
