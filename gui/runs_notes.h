#pragma once
// The Runs tab's notes above its table: where runs come from, while there are none; and the
// sweep it shows -- how many of its runs ended, run and wait, and the time it has left at its
// running runs' pace now (experiments/sweep_pace.h), what one who started a sweep looks at the
// window for.
#include <QString>

#include "experiments/sweep_pace.h"

namespace fathom::gui {

// What to do with no store open (`store_shown` empty) or one without runs; empty otherwise.
QString empty_store_hint(bool store_open, const QString& store_shown, bool no_runs);

// Empty where every run of the sweep ended (or it has none).
QString sweep_time_note(const experiments::SweepStanding& standing);

}  // namespace fathom::gui
