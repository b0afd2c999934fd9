#pragma once
// `fathom sweep extend` and the desktop app's "Extend grid..." as one step: a stored sweep's
// learning-rate curves judged (experiments/lr_grid_edges.h) and, for those whose optimum is at
// an end of their rates, the sweep file of the next rate (experiments/sweep_extension.h), with
// everything a user must know before running it. Reads the store only; writes nothing.
#include <optional>
#include <string>
#include <vector>

#include "db/store.h"
#include "experiments/comparison_table.h"
#include "experiments/lr_grid_edges.h"
#include "experiments/sweep_extension.h"

namespace fathom::experiments {

struct LrExtension {
  std::string sweep;               // its name in the store
  size_t curves = 0;               // judged
  GridEdges edges;                 // which are open
  SweepExtension file;             // empty yaml when none is (or none can be placed)
  std::vector<std::string> notes;  // the edges', the file's, and runs already stored
  std::string set;                 // the sweep's --set values ("K=V K=V"), which --resume repeats
  std::string text;                // the file to write: a comment saying what it is, then yaml
};

// `sweep_file`: the file the sweep was started from; `name`: its name in the store ("" the
// file's); `out_dir`: where the file will go. InputError when the sweep has no runs, has
// queued or running ones (its curves are not finished), or `metric` is a test metric (a rate
// is chosen on validation), and whatever the sweep file's and the sensitivity's loaders throw.
LrExtension plan_lr_extension(const db::Store& store, const std::string& sweep_file,
                              const std::string& name, const std::string& metric, RunValue value,
                              const std::string& out_dir);

// InputError where `runs` (sweep `name`'s) are none, or some are queued or running: a sweep
// still training would be judged on curves it has not finished. `shown` names the store.
void refuse_unended(const std::vector<db::RunRecord>& runs, const std::string& name,
                    const std::string& shown);

// A note where some of `file`'s runs are among `runs` already (that `what` -- rate, depth --
// was tried and left no value); none otherwise.
std::optional<std::string> stored_already(const std::vector<db::RunRecord>& runs,
                                          const SweepExtension& file, const std::string& what);
// The sweep's --set values ("K=V K=V") as its first run's tags keep them; "" for none.
std::string sweep_set_values(const db::Store& store, const std::vector<db::RunRecord>& runs);

// Beside the sweep file, the first of STEM-edge.yaml, STEM-edge2.yaml, ... that does not exist.
std::string free_extension_path(const std::string& sweep_file);

}  // namespace fathom::experiments
