#pragma once
// Spike forensics (issue 38 item 5): a point of a curve -- the training loss, the gradient norm
// -- more than k sample standard deviations above the mean of the N points before it. The
// rolling reference uses finite points only; a non-finite point after finite ones (the loss
// became NaN or infinite) is a spike of its own. Defaults: k = 4, N = 20 (a loss logged every
// 10 updates: the last 200 updates).
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace fathom {

struct SpikeRule {
  double k = 4.0;   // standard deviations above the rolling mean
  int window = 20;  // points before it that make the mean and standard deviation
};

struct Spike {
  int64_t step = 0;
  double value = 0;
  double mean = 0, std = 0;  // of the window before it
  // (value - mean) / std; infinite where std is 0 or the value is not finite.
  double z = std::numeric_limits<double>::infinity();
};

// `points`: (step, value) in step order. A point needs `window` finite points before it to be
// judged. Throws std::invalid_argument for k <= 0 or window < 2.
std::vector<Spike> find_spikes(const std::vector<std::pair<int64_t, double>>& points,
                               const SpikeRule& rule = {});

// The spikes a chart marks: finite ones only (a NaN or infinite loss has no place on the y axis;
// the divergence marker shows it), at most `max` of them, the largest by z, in step order -- a
// noisy curve must not drown in marks.
std::vector<Spike> spikes_to_mark(const std::vector<Spike>& spikes, size_t max);

}  // namespace fathom
