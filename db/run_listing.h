#pragma once
// Every run of a store, read again and again by whoever shows them all (the desktop app's Runs
// tab, once a second). A run's row is mostly its config (~4.5 KB: 70 MB a read of a lab's
// 16,000 runs), which changes only under a lease (Store::set_config: while running). So each
// read takes every run's state from an index (Store::list_run_states_with_metrics) and the
// whole rows only of the runs that are new, running, or whose state moved since they were read
// -- every write to an ended or queued run's row moves its status, lease or heartbeat time. A
// run deleted and another made with its id, name and sweep between two reads is the one case
// it misses (until that run starts).
#include <cstdint>
#include <map>
#include <vector>

#include "db/records.h"

namespace fathom::db {

class Store;

class RunListing {
 public:
  // What store.list_runs() reads, oldest first.
  std::vector<RunRecord> read(const Store& store);
  // Forget what was kept (another store opened).
  void clear() { kept_.clear(); }

 private:
  // Whether `kept` (a whole row read before) is still the row of the run `state` lists.
  static bool still_valid(const RunRecord& kept, const RunRecord& state);
  std::map<int64_t, RunRecord> kept_;
};

}  // namespace fathom::db
