#pragma once
// The runs of one sweep that a filter expression (experiments/run_query.h) keeps: what the
// exports' `--where` selects, e.g. the 24-layer runs of a depth sweep for a figure a column
// wide, or one method's runs. The exports say in a note what was kept, so a table or figure
// made from part of a sweep never passes for the whole of it.
#include <optional>
#include <string>
#include <vector>

#include "db/records.h"
#include "db/store.h"

namespace fathom::experiments {

struct SweepRuns {
  std::vector<db::RunRecord> runs;  // the kept runs, in the store's order
  size_t total = 0;                 // runs of the sweep before the filter
  std::string where;                // the expression, trimmed; "" keeps every run

  // "only the runs where EXPR (K of N)", or nullopt when nothing was filtered.
  std::optional<std::string> note() const;
};

// Throws InputError (field --sweep) when the store has no run of `sweep`, and (field --where)
// when `where` is malformed -- with the column -- or keeps none of the sweep's runs; the
// latter names the fields no run has, the likeliest reason.
SweepRuns select_sweep_runs(const db::Store& store, const std::string& sweep,
                            const std::string& where, const std::string& command = "fathom export");
// The same on the sweep's runs already read (`records`: store.list_runs(sweep), not empty).
SweepRuns filter_sweep_runs(std::vector<db::RunRecord> records, const std::string& sweep,
                            const std::string& where, const std::string& command);

}  // namespace fathom::experiments
