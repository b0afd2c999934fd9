#pragma once
// Figures of the training probes (core/train/probes.h, docs/probes.md): a probe of a run as a
// depth x update heatmap (positions top to bottom in forward order, probe points left to
// right), several runs on one colour scale so that Post-LN, Pre-LN and Admin compare cell for
// cell, and per-position lines over training. No Qt, no LibTorch.
#include <string>
#include <utility>
#include <vector>

#include "db/records.h"
#include "plot/figure.h"

namespace fathom::plot {

// What a per-head probe (positions "....hN") shows per sub-layer: every head as its own row,
// or the heads' largest or mean value. Probes without heads are left as they are.
enum class HeadReduction { All, Max, Mean };
HeadReduction parse_head_reduction(const std::string& text);  // all | max | mean

// The probe with its heads reduced: positions and values per point.
db::ProbeSeries reduce_heads(const db::ProbeSeries& series, HeadReduction heads);

// "#12 norm=pre,init=xavier,seed=1": a run's id and name without its sweep's prefix, which
// would fill a heatmap's title.
std::string probe_run_label(const db::RunRecord& run);

// One heatmap per run (`label`, series), every one on the same colour range: a log scale when
// every value is positive and they span two decades or more.
std::vector<Heatmap> probe_heatmaps(
    const std::vector<std::pair<std::string, db::ProbeSeries>>& runs, const std::string& probe,
    HeadReduction heads);

// One line per position over the updates (a run's probe).
LineFigure probe_lines(const db::ProbeSeries& series, const std::string& probe,
                       const std::string& label, HeadReduction heads);

}  // namespace fathom::plot
