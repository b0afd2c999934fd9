#pragma once
// The 95 % intervals of a hyperparameter-importance decomposition's shares over its seeds
// (experiments/hparam_importance.h): draws that resample each setting's runs with replacement
// and decompose again, the missing settings predicted anew in each.
#include "experiments/grid_completion.h"
#include "experiments/hparam_importance.h"
#include "experiments/importance_grid.h"

namespace fathom::experiments {

// Sets each of out's terms' share_lo/hi, the rest's, interval_draws and a note -- or only the
// note saying why not (no setting with two runs; too many settings). `observed`: the means of
// the settings with values; `completer`: the fit that predicted the others (null: none missing).
void add_share_intervals(const Grid& g, const CellMeans& observed, const GridCompleter* completer,
                         HparamImportance& out);

}  // namespace fathom::experiments
