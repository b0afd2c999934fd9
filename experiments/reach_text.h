#pragma once
// The time-to-target table (experiments/time_to_target.h) as Markdown, as `fathom export reach`
// prints it and a sweep report (`fathom report --reach`) shows it: each cell's runs that got
// there, their updates and tokens (mean +- 95 % t half-width), B_simple where they got there
// (runs that read it while training), each row's best cell in bold, the notes; and the critical
// batch fitted over the rows' best cells, in words.
#include <optional>
#include <string>

#include "experiments/text_table.h"
#include "experiments/time_to_target.h"

namespace fathom::experiments {

// `rows`, `cols` (may be ""), `metric` and `target` head the table.
std::string reach_markdown(const ReachTable& t, const ReachOptions& o);
// The same cells as plain text (no bold), as the app's Time to target tab lists them.
TextTable reach_text_table(const ReachTable& t, const ReachOptions& o);

// S = S_min (1 + B_crit / B) over the rows' best cells, B their target tokens per update.
std::optional<CriticalBatchFit> fit_best_cells(const ReachTable& t);
// The geometric mean over the rows' best cells of their B_simple where they got there, when every
// best cell has one (runs trained with train.noise_scale): McCandlish et al.'s B_crit ~ B_simple.
std::optional<double> best_cells_b_simple(const ReachTable& t);
// The fit in a line (or why there is none), and set against `b_simple` where given.
std::string critical_batch_text(const std::optional<CriticalBatchFit>& f,
                                std::optional<double> b_simple = std::nullopt);

}  // namespace fathom::experiments
