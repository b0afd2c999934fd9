#include "gui/runs_read.h"

#include "db/early_stop_tag.h"
#include "db/metric_names.h"
#include "db/metric_presentation.h"
#include "db/run_status.h"
#include "db/store.h"
#include "db/update_rate.h"
#include "gui/runs_model.h"

namespace fathom::gui {
namespace {

// Every final metric with a better direction, and the validation curves a running run has
// before any final value; the runs to read again: new, or moved on since the last read.
void read_best(const db::Store& store, const RunsReadInputs& in, RunsRead& out) {
  std::set<std::string> names{db::metric::kTrainLoss, db::metric::kValidLoss, db::metric::kValidPpl,
                              db::metric::kValidBleu};
  std::vector<int64_t> stale;
  for (const auto& run : out.runs) {
    for (const auto& [name, value] : run.final_metrics) names.insert(name);
    const std::pair<int64_t, std::string> now{run.updates, run.status};
    const auto read = in.best_read_at.find(run.id);
    if (read == in.best_read_at.end() || read->second != now) stale.push_back(run.id);
  }
  out.best_reread.insert(stale.begin(), stale.end());
  for (const auto& name : names) {
    const auto higher = db::metric::higher_is_better(name);
    if (!higher) continue;
    out.best_metrics.insert(name);
    if (!stale.empty()) out.best_points[name] = store.best_points(stale, name, *higher);
  }
}

// The chosen sweep's runs by state and time left: each of its runs not ended has its config's
// train.max_updates parsed once (kept with the listing until it ends: a resume may give it
// another), each running run's rate is read from its last losses.
experiments::SweepStanding chosen_sweep_standing(SharedRunListing& listing, const RunsRead& read,
                                                 const std::string& sweep) {
  const std::lock_guard<std::mutex> hold(listing.mutex);
  for (const auto& run : read.runs) {
    if (run.sweep != sweep) continue;
    if (db::is_terminal_status(run.status)) {
      listing.max_updates.erase(run.id);
    } else if (auto [known, added] = listing.max_updates.try_emplace(run.id, 0); added) {
      known->second = db::max_updates_of(run);
    }
  }
  return experiments::sweep_standing(read.runs, sweep, listing.max_updates,
                                     db::seconds_per_update_by_run(read.recent_losses),
                                     db::unix_now());
}

}  // namespace

RunsRead read_runs(const db::Store& store, SharedRunListing& listing, const RunsReadInputs& in) {
  RunsRead out;
  {
    const std::lock_guard<std::mutex> hold(listing.mutex);
    out.runs = listing.listing.read(store);
  }
  // A run's worker job changes while it is queued or running (a requeued Slurm task, a new
  // worker); once ended, its tags were read once and are kept until a resume runs it again.
  std::vector<const db::RunRecord*> to_read;
  std::vector<int64_t> to_read_ids;
  std::vector<db::RunRecord> running;
  for (const auto& run : out.runs) {
    if (!(in.ended_known.count(run.id) && db::is_terminal_status(run.status))) {
      to_read.push_back(&run);
      to_read_ids.push_back(run.id);
    }
    if (run.status == db::status::kRunning) running.push_back(run);
  }
  const auto tags = store.listing_tags(to_read_ids);  // one round trip to a server
  const std::map<std::string, std::string> no_tags;
  for (const db::RunRecord* run : to_read) {
    const auto found = tags.find(run->id);
    const auto& of_run = found == tags.end() ? no_tags : found->second;
    RunsRead::Tags& shown = out.tags[run->id];
    shown.ended = db::is_terminal_status(run->status);
    shown.job = RunsModel::jobShown(of_run, run->status);
    if (db::ended_by_early_stop(of_run))
      shown.early_stop = QString::fromStdString(of_run.at(db::kEarlyStopTag));
    for (const auto& [key, value] : of_run)
      if (key.rfind("axis.", 0) == 0) shown.axes.emplace(key.substr(5), value);
  }
  out.recent_losses = db::recent_train_losses(store, running);  // two
  if (!in.sweep.empty()) out.sweep = chosen_sweep_standing(listing, out, in.sweep);
  out.best = in.best;
  if (in.best) read_best(store, in, out);
  return out;
}

}  // namespace fathom::gui
