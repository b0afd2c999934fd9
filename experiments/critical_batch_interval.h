#pragma once
// How far the critical batch fitted over a time-to-target table's best cells can be trusted: a
// percentile bootstrap over the runs. Each draw resamples each cell's runs with replacement (a
// run that never reached the target may be drawn: the cell is then incomplete, as the table's
// rule has it), chooses each row's best complete cell again -- the choice, made on the same
// validation curves whose updates are fitted, is inside the interval, not taken as given -- and
// refits S = S_min (1 + B_crit / B) over those cells (McCandlish et al. 2018, eq. 2.11). A draw
// whose fit shows no diminishing returns counts at its limit: S_min not positive (updates
// falling as fast as 1 / B: no batch is too large) as B_crit = +inf, updates not falling with
// the batch as B_crit = 0 -- so an interval open above says the data bound B_crit below only.
// A cell's drawn mean is rescaled about its mean by sqrt(n / (n - 1)), so that its spread is
// the t-interval's s^2 / n and not the plain bootstrap's (n - 1) / n of it -- a third short at
// three seeds a cell -- and the interval's ends are read where Hesterberg's expanded percentile
// interval reads them (base/metrics/statistics.h), for the degrees of freedom the fit's cells
// know their spread from: their runs less one each, pooled (8 for four rows of three seeds:
// the 1.06 % and 98.94 % quantiles). Over tables made with a known B_crit
// (bench/bench_critical_batch.cpp) the plain 2.5 % and 97.5 % quantiles held it in 86 % of
// tables of one rate and three seeds a row and 94 % with six rates; expanded, 90 % and 97 %:
// still short at one rate and three seeds, so read it there as a guide.
// Where the best cells read B_simple (train.noise_scale), the same draws give B_crit / B_simple
// against the best cells' geometric mean of the drawn runs' B_simple; a draw whose best cells
// (chosen again) read none counts at 0 for the interval's low end and +inf for its high end.
#include <cstdint>

#include "experiments/time_to_target.h"

namespace fathom::experiments {

inline constexpr int kCriticalBatchDraws = 2000;
inline constexpr uint64_t kCriticalBatchSeed = 18121206;  // arXiv 1812.06162

// Sets fit's b_crit_lo/hi, ratio_lo/hi (where every best cell has a B_simple), draws and
// best_kept from `t` (its cells' run_updates, run_b_simple; its tokens per update). A draw
// where fewer than 3 rows have a complete cell has no fit: it is left out (`draws` counts those
// fitted, `unfit` the rest).
void add_critical_batch_interval(CriticalBatchFit& fit, const ReachTable& t,
                                 int draws = kCriticalBatchDraws,
                                 uint64_t seed = kCriticalBatchSeed);

}  // namespace fathom::experiments
