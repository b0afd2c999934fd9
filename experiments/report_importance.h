#pragma once
// The sweep report's "Which axes matter" section: the functional ANOVA of the validation loss
// over the sweep's settings (experiments/hparam_importance.h) -- each axis's and pair's share
// with its interval over the seeds, the notes (settings predicted, left out), and its figure
// where the build draws figures. A sweep it cannot decompose gets the reason in one line; a
// sweep of one swept axis, or without a validation loss, no section.
#include <functional>
#include <ostream>
#include <string>

#include "db/store.h"
#include "experiments/hparam_importance.h"

namespace fathom::experiments {

// Draws the decomposition into the report's folder as `<stem>.png`; returns that file name,
// or "" where figures are not available. Null: no figure.
using ImportanceRenderer = std::function<std::string(const HparamImportance&, const std::string&)>;

// `selected`: the report's runs (the sweep's, or those its --where keeps).
void importance_section(std::ostream& out, const db::Store& store, const SweepRuns& selected,
                        const ImportanceRenderer& render);

}  // namespace fathom::experiments
