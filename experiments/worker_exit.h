#pragma once
// The exit statuses of `fathom worker` (cli/cmd_worker.cpp), which its launchers read.
namespace fathom::experiments {

constexpr int kWorkerEnded = 0;     // the run ended and its end is recorded (or nothing to claim)
constexpr int kWorkerFailed = 1;    // the run failed; recorded as "failed" with the error
constexpr int kWorkerBadInput = 2;  // bad arguments or store (nothing claimed)
// The run was taken from it (declared lost and requeued, claimed by another worker, or
// cancelled; db/lease.h): it stopped without writing anything more.
constexpr int kWorkerFenced = 3;
// The store was out of reach past its retry budget: the run is left crashed (resumable).
constexpr int kWorkerStoreLost = 4;
// Stopped by a signal (preemption, a time limit's warning): a checkpoint was written and the
// run put back in the queue. EX_TEMPFAIL: "try again later".
constexpr int kWorkerRequeued = 75;

inline const char* describe_worker_exit(int status) {
  switch (status) {
    case kWorkerEnded:
      return "ended";
    case kWorkerFailed:
      return "run failed";
    case kWorkerBadInput:
      return "bad input";
    case kWorkerFenced:
      return "the run was taken from it; stopped without writing";
    case kWorkerStoreLost:
      return "lost the run store";
    case kWorkerRequeued:
      return "stopped and requeued";
    case 127:
      return "could not start the fathom binary";
    default:
      return "unexpected status";
  }
}

}  // namespace fathom::experiments
