#include "base/metrics/spikes.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <deque>
#include <stdexcept>
#include <string>

namespace fathom {

std::vector<Spike> find_spikes(const std::vector<std::pair<int64_t, double>>& points,
                               const SpikeRule& rule) {
  if (!(rule.k > 0)) throw std::invalid_argument("spike k must be > 0");
  if (rule.window < 2)
    throw std::invalid_argument("spike window must be >= 2 points, got " +
                                std::to_string(rule.window));
  std::vector<Spike> spikes;
  std::deque<double> window;  // the last `rule.window` finite values
  for (const auto& [step, value] : points) {
    if (static_cast<int>(window.size()) == rule.window) {
      double mean = 0;
      for (double v : window) mean += v;
      mean /= static_cast<double>(window.size());
      double squares = 0;
      for (double v : window) squares += (v - mean) * (v - mean);
      const double std = std::sqrt(squares / static_cast<double>(window.size() - 1));
      if (!std::isfinite(value) || value > mean + rule.k * std) {
        Spike s{step, value, mean, std};
        if (std::isfinite(value) && std > 0) s.z = (value - mean) / std;
        spikes.push_back(s);
      }
    }
    if (!std::isfinite(value)) continue;
    window.push_back(value);
    if (static_cast<int>(window.size()) > rule.window) window.pop_front();
  }
  return spikes;
}

std::vector<Spike> spikes_to_mark(const std::vector<Spike>& spikes, size_t max) {
  std::vector<Spike> shown;
  for (const Spike& s : spikes)
    if (std::isfinite(s.value)) shown.push_back(s);
  if (shown.size() > max) {
    std::nth_element(shown.begin(), shown.begin() + static_cast<std::ptrdiff_t>(max), shown.end(),
                     [](const Spike& a, const Spike& b) { return a.z > b.z; });
    shown.resize(max);
    std::sort(shown.begin(), shown.end(),
              [](const Spike& a, const Spike& b) { return a.step < b.step; });
  }
  return shown;
}

}  // namespace fathom
