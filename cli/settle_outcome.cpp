#include "cli/settle_outcome.h"

#include <cstring>

#include "base/util/process.h"
#include "cli/stop_signals.h"
#include "core/train/error_text.h"
#include "db/run_status.h"

namespace fathom::cli {
namespace {

// "after update 40", "during the final evaluation": where a stopped attempt stopped.
std::string where_stopped(const TrainOutcome& outcome, bool requeue) {
  // Cut short inside an update (core/model/stop_point.h): the checkpoint is of the updates
  // before it, as for a stop between them.
  if (outcome.stopped_during.empty() && outcome.abandoned_update > 0)
    return "during update " + std::to_string(outcome.abandoned_update) +
           " (abandoned; it resumes after update " + std::to_string(outcome.updates) + ")";
  if (outcome.stopped_during.empty())
    return "after update " + std::to_string(outcome.updates) +
           (requeue ? "" : " (checkpoint written)");
  return "during " + outcome.stopped_during +
         (requeue ? "" : " (it continues from its last checkpoint)");
}

}  // namespace

std::string stopped_why(const TrainOutcome& outcome, const WhenStopped& when_stopped) {
  const std::string signal = strsignal(stop_signal());
  const std::string where = where_stopped(outcome, when_stopped.requeue);
  return when_stopped.requeue
             ? "stopped by " + signal + " " + where + " on " + host_name() + "; requeued"
             : "interrupted by " + signal + " " + where;
}

Settlement settle_outcome(db::Store& store, const db::Lease& lease, const TrainOutcome& outcome,
                          const WhenStopped& when_stopped) {
  Settlement s;
  s.status = outcome.status;
  if (outcome.status != TrainOutcome::kStopped) return s;
  s.why = stopped_why(outcome, when_stopped);
  try {
    if (when_stopped.requeue) {
      s.status = db::status::kQueued;
      store.requeue_run(lease, s.why);
    } else {
      s.status = db::status::kCancelled;
      store.finish_run(lease, s.status,
                       s.why + "; continue with `" + when_stopped.resume_command + "`");
    }
  } catch (const db::LeaseLost& e) {
    s.lease_lost = true;
    s.record_error = e.what();
  }
  return s;
}

Settlement failure_of(const std::exception& error) {
  Settlement s;
  const bool outage = dynamic_cast<const db::StoreUnreachable*>(&error) != nullptr;
  s.status = outage ? db::status::kCrashed : db::status::kFailed;
  s.why = error_text(error);
  return s;
}

Settlement settle_outcome(db::Store& store, const db::Lease& lease, const std::exception& error) {
  Settlement s = failure_of(error);
  try {
    store.finish_run(lease, s.status, s.why);
  } catch (const db::LeaseLost& e) {
    s.lease_lost = true;
    s.record_error = e.what();
  } catch (const std::exception& also) {
    s.record_error = error_text(also);
  }
  return s;
}

}  // namespace fathom::cli
