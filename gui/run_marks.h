#pragma once
// What a run's curve is marked with on the dashboard (issue 38 item 5): the spikes of its raw
// points (SpikeCache finds them) and, for a fork, the update where it left its parent (the
// run tags forked_from and forked_at that `fathom train --fork` sets, db/fork_tags.h).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/metrics/spikes.h"
#include "db/fork_tags.h"
#include "db/records.h"
#include "gui/chart_marks.h"
#include "plot/curve_x.h"
#include "plot/figure.h"

namespace fathom::gui {

// A mark per spike of `points` that spikes_to_mark() keeps -- its largest, at most
// plot::kMaxSpikeMarks, as exported curves mark -- (the curve labelled `curve`, placed on the x
// axis by `place`).
void add_spike_marks(const std::vector<Spike>& spikes, const std::vector<db::MetricPoint>& points,
                     const plot::RunX& place, const QString& curve, const SpikeRule& rule,
                     std::vector<ChartMark>* marks);
// The mark on a fork's curve where it left its parent (on the line as drawn).
ChartMark fork_mark(const db::ForkOrigin& origin, const std::vector<db::MetricPoint>& points,
                    const plot::RunX& place, const QString& curve);

// Puts `marks` of the curve (spikes, the fork point, milestones) into it as an exported figure
// draws them (plot::Curve's spike_x/spike_y, fork_step, milestone_x): a chart's Export draws
// the marks on screen.
void carry_marks(const std::vector<ChartMark>& marks, plot::Curve& curve);

// The run page's milestones on the curve labelled `curve` (valid_loss, x in updates): the
// checkpoint the final evaluation used (tag final_model: checkpoint_best at its update) or,
// before the run's end, its checkpoint_best so far (its artifact row); and the update where
// train.patience ended training (tag early_stop, db/early_stop_tag.h).
std::vector<ChartMark> milestone_marks(const db::RunRecord& run,
                                       const std::map<std::string, std::string>& tags,
                                       const std::vector<db::Artifact>& artifacts,
                                       const QString& curve);

}  // namespace fathom::gui
