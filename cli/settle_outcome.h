#pragma once
// How `fathom train` and `fathom worker` record the end of a training attempt: one settlement
// of train_run's outcome or error, under the lease the process holds (db/lease.h). The two
// differ only in what a stopped run becomes: `fathom train` ends it cancelled (the user goes on
// with --resume), a worker puts it back in its sweep's queue for the next claim.
#include <exception>
#include <string>

#include "core/train/trainer.h"
#include "db/store.h"

namespace fathom::cli {

// What becomes of a run whose training was stopped on request (a signal).
struct WhenStopped {
  bool requeue = false;  // true: back in the queue; false: cancelled
  // Cancelled: how to continue it, written into its error ("fathom train --resume 7").
  std::string resume_command;
};

struct Settlement {
  // What the run is now: the trainer's end (finished, diverged), or what this settlement
  // recorded: failed or crashed (an error; crashed when the store was out of reach, which
  // `fathom sweep --resume` restarts), cancelled or queued (stopped).
  std::string status;
  std::string why;           // the reason it was recorded with; "" for the trainer's own ends
  bool lease_lost = false;   // the run was no longer this process's: nothing was recorded
  std::string record_error;  // the store refused the record itself (its error text)
};

// Why a stopped attempt stopped, as settle_outcome records it: "interrupted by Interrupt after
// update 40 (checkpoint written)" (cancelled), "stopped by Terminated after update 40 on node3;
// requeued" (requeued).
std::string stopped_why(const TrainOutcome& outcome, const WhenStopped& when_stopped);

// A training attempt that returned: a stop is recorded as `when_stopped` says, with the signal
// that asked for it and where it stopped; the trainer recorded every other end itself.
Settlement settle_outcome(db::Store& store, const db::Lease& lease, const TrainOutcome& outcome,
                          const WhenStopped& when_stopped);
// What an error makes of a run, before anything is recorded (to say it first: recording it may
// wait out the store's retry budget): failed, or crashed when the store was out of reach.
Settlement failure_of(const std::exception& error);
// A training attempt that threw `error` (not LeaseLost): records failure_of(error).
Settlement settle_outcome(db::Store& store, const db::Lease& lease, const std::exception& error);

}  // namespace fathom::cli
