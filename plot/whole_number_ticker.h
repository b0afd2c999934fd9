#pragma once
// The ticks of an axis of counts (updates, Lanczos steps, layers): whole numbers only.
// QCustomPlot's own linear ticker picks its step from 1, 2, 2.5, 5 x 10^k, which over a short
// range gives 2.5, 7.5, 12.5 -- or 0.5 steps over a range of four -- on an axis where only
// whole numbers exist. Here a step below 1 becomes 1 and 2.5 becomes 2; every other step of that
// set is already whole, and ticks are multiples of the step. Subticks too fall on whole numbers
// (none between ticks one apart).
#include <qcustomplot.h>

namespace fathom::plot::detail {

class WholeNumberTicker : public QCPAxisTicker {
 protected:
  double getTickStep(const QCPRange& range) override;
  int getSubTickCount(double tick_step) override;
};

// The step QCustomPlot would take (`readable`) made whole, as WholeNumberTicker does.
double whole_tick_step(double readable);
// The most subticks, at most `readable` (QCustomPlot's count), that split `step` into whole parts.
int whole_subtick_count(double step, int readable);

}  // namespace fathom::plot::detail
