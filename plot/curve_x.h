#pragma once
// The x axes a training curve can be drawn against: the update step (what the trainer counts),
// target tokens seen (the trainer's `target_tokens` curve: runs with different batch sizes
// line up), training compute in FLOPs (its `train_flops` curve, core/train/training_flops.h:
// runs of different depths or widths at equal cost, as depth-scaling studies compare them),
// and wall-clock time since the run's start (a resumed run's pause included: what the
// researcher waited).
#include <string>
#include <vector>

#include "db/records.h"

namespace fathom::plot {

enum class XAxis { Update, Tokens, Time, Compute };

// "update", "tokens", "compute" or "time"; anything else throws InputError naming `field`.
XAxis parse_x_axis(const std::string& text, const std::string& field = "--x");
std::string x_axis_name(XAxis axis);   // what parse_x_axis reads; CurveFigure::x_kind
std::string x_axis_label(XAxis axis);  // the axis title
// The run curve an axis reads its x from (target_tokens, train_flops); "" for update and time.
const std::string& x_series_metric(XAxis axis);
// Why a run has no place on `axis` ("has no train_flops curve (...)"), for its error or note.
std::string x_unavailable_reason(XAxis axis);

// Where one run's points go on an x axis.
class RunX {
 public:
  // series: the run's x_series_metric(axis) points (read for the tokens and compute axes
  // only; must outlive this); started_at: the run's start, unix seconds (XAxis::Time).
  RunX(XAxis axis, double started_at, const std::vector<db::MetricPoint>* series);
  // The tokens and compute axes need the run's curve of that (runs trained before Fathom
  // logged it have none); the time axis its start time.
  bool available() const;
  double at(const db::MetricPoint& point) const;
  // Where the divergence marker of a run that diverged at `step` goes: the step itself on the
  // update axis; on the others, the x of the last of `points` (by step) at or before it (the
  // first point when none is).
  double at_step(const std::vector<db::MetricPoint>& points, int64_t step) const;

 private:
  XAxis axis_;
  double started_at_;
  const std::vector<db::MetricPoint>* series_;
};

}  // namespace fathom::plot
