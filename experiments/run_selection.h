#pragma once
// Which runs a listing shows and in what order: `fathom runs --where EXPR --sort FIELD [--desc]
// --limit N --columns F,G` -- the five best 24-layer runs by validation perplexity, with their
// learning rates, from a sweep of thousands. Fields are the filter language's
// (experiments/run_query.h): a run's own fields, final metrics, config keys in full or by their
// last part. Torch-free.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "db/records.h"
#include "experiments/run_query.h"

namespace fathom::experiments {

// A run as the filter language reads it: its record and its fields (fields_parsing_config:
// its config is parsed when a config key is first asked). select_runs leaves the fields empty
// where nothing asked for one.
struct QueriedRun {
  db::RunRecord run;
  RunFields fields;
};
// `asked`: the fields the caller will ask of every run (read from each config in one pass).
std::vector<QueriedRun> queried_runs(std::vector<db::RunRecord> runs,
                                     const std::vector<std::string>& asked = {});

// Each of `names` that none of `runs` has, as "FIELD (did you mean F?)" where one of the first
// run's fields is a small edit away, or "seed (several keys end in it: ...)" where it is the
// last part of several; in the order given.
std::vector<std::string> fields_no_run_has(const std::vector<QueriedRun>& runs,
                                           const std::vector<std::string>& names);

struct RunSelection {
  std::string where;        // a filter expression; "" keeps every run
  std::string sort;         // the field to order by; "": as given (the store's order, by id)
  bool descending = false;  // largest first (numbers) or Z..A (text)
  size_t limit = 0;         // only the first N after sorting; 0: all
  std::vector<std::string> columns;  // fields the caller shows: each must be some kept run's
  bool reads_fields() const;
};

// The runs `selection` keeps, in its order. Runs without the sort field come last, in their
// order; ties keep theirs. Numbers sort as numbers, and before text. Throws InputError naming
// `command` and the option (--where, --sort, --columns) for a malformed expression (with its
// column) or a field no run has -- a typo, which would otherwise list nothing or sort nothing.
std::vector<QueriedRun> select_runs(std::vector<db::RunRecord> runs, const RunSelection& selection,
                                    const std::string& command);

}  // namespace fathom::experiments
