#include "db/lease.h"

#include "db/run_status.h"

namespace fathom::db {
namespace {

std::string why(const Lease& lease, const std::string& status, int64_t generation) {
  std::string s = "run " + std::to_string(lease.run) + " is no longer this worker's (lease " +
                  std::to_string(lease.generation) + "): it is " + status;
  if (generation != lease.generation)
    s += " under lease " + std::to_string(generation) +
         (status == status::kRunning ? ", taken by another worker" : ", requeued or taken since");
  return s + "; nothing more is written";
}

}  // namespace

LeaseLost::LeaseLost(const Lease& lease, const std::string& status_now, int64_t generation_now)
    : std::runtime_error(why(lease, status_now, generation_now)),
      lease_(lease),
      status_now_(status_now),
      generation_now_(generation_now) {}

}  // namespace fathom::db
