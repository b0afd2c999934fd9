#pragma once
// The ticks of a log axis. Over two decades or more, QCustomPlot's own: powers of ten. Over a
// narrower range (below 10^1.6 QCustomPlot falls back to evenly spaced linear ticks: 2.5, 5,
// 7.5, 10, 12.5 on a perplexity axis from 1.05 to 13, which leaves its lower half unlabelled)
// the values m x 10^k of the coarsest 1-2-5 style set that puts at least four ticks on the
// axis, e.g. 1.5, 2, 3, 5, 7, 10. Subticks are drawn only with the powers of ten.
#include <qcustomplot.h>

namespace fathom::plot::detail {

// A log axis whose ends are closer than this ratio gets 1-2-5 ticks, labelled as numbers.
constexpr double kNarrowLogRatio = 100;

class ReadableLogTicker : public QCPAxisTickerLog {
 protected:
  QVector<double> createTickVector(double tick_step, const QCPRange& range) override;
  int getSubTickCount(double tick_step) override;

 private:
  bool narrow_ = false;  // of the last range ticked (QCustomPlot asks for ticks, then subticks)
};

}  // namespace fathom::plot::detail
