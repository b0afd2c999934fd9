#pragma once
// A run report's sections on forks (`fathom train --fork RUN --from STEP`, core/train/fork.h;
// tags db/fork_tags.h). A fork's report says which run and update it left and what it changed,
// with its final metrics beside its parent's; a forked run's report lists its forks. The
// report's curves then draw those runs beside it: a fork exists to be compared with its parent.
#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "db/store.h"
#include "experiments/paired_test.h"

namespace fathom::experiments {

// At most this many forks are drawn beside a run (its newest): more would crowd the figure.
constexpr size_t kForksDrawn = 6;

// Writes the sections `run` has (none for a run that is neither a fork nor forked) and returns
// the runs to draw beside it: its parent while the store still holds it, then its newest forks
// (at most kForksDrawn), oldest first. `metrics`: the columns of the forks' table, those some
// fork has. `test`: a fork's test BLEU (perplexity) against its parent's, said in its section
// (null: the section names `fathom compare`).
std::vector<db::RunRecord> fork_sections(std::ostream& out, const db::Store& store,
                                         const db::RunRecord& run,
                                         const std::vector<std::string>& metrics,
                                         const PairedTester& test = nullptr);

// A sweep report's note on a fork sweep (docs/sweeps.md): where every one of `runs` is a fork of
// one run at one update, says so with the parent's status and final `metrics` (those it has):
// what the sweep's rescues are measured against. Returns the parent while the store holds it
// (the report draws it in the sweep's curves); nothing for any other sweep.
std::optional<db::RunRecord> fork_sweep_note(std::ostream& out, const db::Store& store,
                                             const std::vector<db::RunRecord>& runs,
                                             const std::vector<std::string>& metrics);

}  // namespace fathom::experiments
