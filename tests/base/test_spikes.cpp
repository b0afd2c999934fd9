// Spike detection (base/metrics/spikes.h), worked by hand: the rolling mean and sample standard
// deviation of the N finite points before a point, the k-sigma threshold (strictly above), a
// NaN as a spike that stays out of later windows, and bad rules.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

#include "base/metrics/spikes.h"

using fathom::find_spikes;
using fathom::Spike;
using fathom::SpikeRule;

namespace test_spikes {

// Window 3, k 2. Before update 40: 1, 2, 3 -- mean 2, sample std 1, threshold 4: 4.5 is a
// spike (z 2.5). Before update 50: 2, 3, 4.5 -- mean 19/6, sample std sqrt(((7/6)^2 + (1/6)^2 +
// (8/6)^2) / 2) = sqrt(19/12); 5.5 lies 1.85 std above: not a spike.
TEST(Spikes, ThresholdIsKSampleStdAboveTheRollingMean) {
  const std::vector<std::pair<int64_t, double>> loss = {
      {10, 1}, {20, 2}, {30, 3}, {40, 4.5}, {50, 5.5}};
  const auto spikes = find_spikes(loss, SpikeRule{2.0, 3});
  ASSERT_EQ(spikes.size(), 1u);
  EXPECT_EQ(spikes[0].step, 40);
  EXPECT_DOUBLE_EQ(spikes[0].mean, 2.0);
  EXPECT_DOUBLE_EQ(spikes[0].std, 1.0);
  EXPECT_DOUBLE_EQ(spikes[0].z, 2.5);
  // Exactly at the threshold is not above it.
  EXPECT_TRUE(find_spikes({{1, 1}, {2, 2}, {3, 3}, {4, 4}}, SpikeRule{2.0, 3}).empty());
  // The first `window` points have no reference and are never judged.
  EXPECT_TRUE(find_spikes({{1, 1}, {2, 100}, {3, 1}}, SpikeRule{2.0, 3}).empty());
}

TEST(Spikes, ANonFinitePointIsASpikeAndStaysOutOfLaterWindows) {
  const std::vector<std::pair<int64_t, double>> loss = {{1, 1},   {2, 2},   {3, 3},
                                                        {4, NAN}, {5, 3.9}, {6, 5}};
  const auto spikes = find_spikes(loss, SpikeRule{2.0, 3});
  ASSERT_EQ(spikes.size(), 2u);
  EXPECT_EQ(spikes[0].step, 4);
  EXPECT_TRUE(std::isinf(spikes[0].z));
  // Update 5 is judged against 1, 2, 3 (the NaN left out): 3.9 < 4. Update 6 against 2, 3, 3.9:
  // mean 2.9667, std 0.9504, threshold 4.867 < 5.
  EXPECT_EQ(spikes[1].step, 6);
  EXPECT_NEAR(spikes[1].mean, 8.9 / 3, 1e-12);
}

TEST(Spikes, ABadRuleIsRefused) {
  EXPECT_THROW(find_spikes({}, SpikeRule{0.0, 20}), std::invalid_argument);
  EXPECT_THROW(find_spikes({}, SpikeRule{4.0, 1}), std::invalid_argument);
}

}  // namespace test_spikes

namespace test_spikes {

// What a chart marks: the finite spikes only, at most `max`, the largest by z, in step order.
TEST(Spikes, TheMarkedOnesAreTheLargestFiniteInStepOrder) {
  std::vector<Spike> spikes;
  for (int i = 0; i < 6; ++i) {
    Spike s;
    s.step = 10 * (i + 1);
    s.value = 1.0 + i;
    s.z = (i * 7) % 6;  // z: 0, 1, 2, 3, 4, 5 in the order 10, 40, 30, 60, 20, 50 (i*7 mod 6 = i)
    spikes.push_back(s);
  }
  Spike nan;
  nan.step = 70;
  nan.value = NAN;
  spikes.push_back(nan);  // z infinite, but no place on the y axis
  const auto marked = fathom::spikes_to_mark(spikes, 3);
  ASSERT_EQ(marked.size(), 3u);
  // z = i: the three largest are i = 3, 4, 5, i.e. steps 40, 50, 60.
  EXPECT_EQ(marked[0].step, 40);
  EXPECT_EQ(marked[1].step, 50);
  EXPECT_EQ(marked[2].step, 60);
  EXPECT_EQ(fathom::spikes_to_mark(spikes, 100).size(), 6u);
}

}  // namespace test_spikes
