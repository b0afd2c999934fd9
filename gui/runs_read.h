#pragma once
// What a poll of the Runs tab reads from the store: the runs, the tags of those whose tags may
// have moved, each running run's last train_loss points, and with "Best" the best points of
// the runs that moved on. A read with no widget in it, so that the window's once-a-second poll
// does it in a StoreWorker thread and only shows the result on the UI thread
// (RunsView::refreshInBackground); RunsView::refresh does the same read in place.
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <QString>

#include "db/records.h"
#include "db/run_listing.h"
#include "experiments/sweep_pace.h"

namespace fathom::db {
class Store;
}

namespace fathom::gui {

// The view's state a read starts from, copied when the read is sent.
struct RunsReadInputs {
  std::set<int64_t> ended_known;  // runs whose tags were read once they had ended
  bool best = false;              // "Best" is on
  std::string sweep;              // the sweep chosen alone ("" none): its standing is read
  // Each run's (updates, status) when its best points were last read.
  std::map<int64_t, std::pair<int64_t, std::string>> best_read_at;
};

struct RunsRead {
  std::vector<db::RunRecord> runs;  // as Store::list_runs gives them
  // What the tags of every run but those ended_known that are still ended say: its worker
  // job as the table shows it, why an early stop ended it ("" if none), its sweep axes.
  struct Tags {
    bool ended = false;  // the run's status is terminal
    QString job;
    QString early_stop;
    std::map<std::string, std::string> axes;  // axis.KEY tags by KEY
  };
  std::map<int64_t, Tags> tags;
  // Each running run's last train_loss points (db/update_rate.h).
  std::map<int64_t, std::vector<db::MetricPoint>> recent_losses;
  // RunsReadInputs::sweep's runs by state and time left (none where no sweep was chosen).
  std::optional<experiments::SweepStanding> sweep;
  bool best = false;  // RunsReadInputs::best: the fields below were read
  // With best: the runs whose best points were read (new, or moved on since), the points
  // read by metric, and the metrics with a better direction.
  std::set<int64_t> best_reread;
  std::map<std::string, std::map<int64_t, db::MetricPoint>> best_points;
  std::set<std::string> best_metrics;
};

// The rows kept between reads (db::RunListing), for the view's in-place reads and its
// worker's alike: one read at a time.
struct SharedRunListing {
  std::mutex mutex;
  db::RunListing listing;
  std::map<int64_t, int64_t> max_updates;  // of a chosen sweep's runs not ended, parsed once
};

RunsRead read_runs(const db::Store& store, SharedRunListing& listing, const RunsReadInputs& in);

}  // namespace fathom::gui
