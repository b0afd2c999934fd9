#include "plot/whole_number_ticker.h"

#include <cmath>

namespace fathom::plot::detail {

double whole_tick_step(double readable) {
  if (!(readable > 1)) return 1;
  const double whole = std::round(readable);
  if (std::abs(readable - whole) < 1e-9 * readable) return whole;
  return std::floor(readable);  // 2.5 -> 2: a step of the same size, still readable
}

int whole_subtick_count(double step, int readable) {
  for (int n = readable; n > 0; --n) {
    const double part = step / (n + 1);
    if (part >= 1 && std::abs(part - std::round(part)) < 1e-9 * step) return n;
  }
  return 0;
}

double WholeNumberTicker::getTickStep(const QCPRange& range) {
  return whole_tick_step(QCPAxisTicker::getTickStep(range));
}

int WholeNumberTicker::getSubTickCount(double tick_step) {
  return whole_subtick_count(tick_step, QCPAxisTicker::getSubTickCount(tick_step));
}

}  // namespace fathom::plot::detail
