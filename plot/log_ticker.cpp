#include "plot/log_ticker.h"

#include <cmath>
#include <vector>

namespace fathom::plot::detail {
namespace {

constexpr int kMinTicks = 4;

// m x 10^k for every mantissa m of `set` from one step below the range to one above it.
QVector<double> ticks_from(const std::vector<double>& set, const QCPRange& range) {
  QVector<double> ticks;
  for (int k = static_cast<int>(std::floor(std::log10(range.lower))) - 1;
       k <= static_cast<int>(std::ceil(std::log10(range.upper))); ++k)
    for (double m : set) ticks.push_back(m * std::pow(10.0, k));
  return ticks;
}

int inside(const QVector<double>& ticks, const QCPRange& range) {
  int n = 0;
  for (double t : ticks) n += t >= range.lower && t <= range.upper;
  return n;
}

}  // namespace

QVector<double> ReadableLogTicker::createTickVector(double tick_step, const QCPRange& range) {
  narrow_ = range.lower > 0 && range.upper / range.lower < kNarrowLogRatio;
  if (!narrow_) return QCPAxisTickerLog::createTickVector(tick_step, range);
  static const std::vector<std::vector<double>> kSets = {
      {1}, {1, 2, 5}, {1, 1.5, 2, 3, 5, 7}, {1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8, 9}};
  QVector<double> ticks;
  for (const auto& set : kSets) {
    ticks = ticks_from(set, range);
    if (inside(ticks, range) >= kMinTicks) break;
  }
  return ticks;  // QCustomPlot trims what lies beyond the range
}

int ReadableLogTicker::getSubTickCount(double tick_step) {
  return narrow_ ? 0 : QCPAxisTickerLog::getSubTickCount(tick_step);
}

}  // namespace fathom::plot::detail
