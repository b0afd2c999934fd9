#pragma once
// The Runs tab's notes above its table: where runs come from, while there are none; and the
// sweep it shows -- how many of its runs ended, run and wait, and the time it has left at its
// running runs' pace now (experiments/sweep_pace.h), what one who started a sweep looks at the
// window for.
#include <cstdint>
#include <map>
#include <vector>

#include <QString>

#include "db/records.h"

namespace fathom::gui {

// What to do with no store open (`store_shown` empty) or one without runs; empty otherwise.
QString empty_store_hint(bool store_open, const QString& store_shown, bool no_runs);

// Empty where every run of `sweep` among `runs` ended (or it has none). `max_updates`: each run
// not ended's train.max_updates; `seconds_per_update`: each running run's rate now.
QString sweep_time_note(const QString& sweep, const std::vector<db::RunRecord>& runs,
                        const std::map<int64_t, int64_t>& max_updates,
                        const std::map<int64_t, double>& seconds_per_update);

}  // namespace fathom::gui
