#pragma once
// `fathom train --reproduce RUN`: train a stored run's config again, as a new run outside any
// sweep (its tables would count it as one more seed), then say whether the new curves equal
// the stored ones (experiments/run_agreement.h) and what the two were computed with where that
// differs (code revision, OpenBLAS kernels, device). On the CPU a run is deterministic given its
// seed: a reproduction on the same code and kernels agrees to the last bit, so a difference
// names a change in what computed it -- and the update where it first shows.
#include <cstdint>
#include <string>

#include "base/config/config.h"
#include "db/store.h"

namespace fathom::cli {

// The exit status of a reproduction that trained but whose curves differ from the original's.
constexpr int kNotReproduced = 5;

// The original's config, named "<name> (reproduces #N)".
RunConfig reproduction_config(const db::Store& store, const db::RunRecord& original);

// Tags the new run `reproduces` = the original's id.
void record_reproduction(db::Store& store, int64_t run, const db::RunRecord& original);

// Compares the new run's curves with the original's (`tolerance` relative), tags the new run
// `reproduction` with the verdict, prints it (JSON with `json`), and returns whether they agree.
bool report_reproduction(db::Store& store, const db::RunRecord& original, int64_t run,
                         double tolerance, bool json);

}  // namespace fathom::cli
