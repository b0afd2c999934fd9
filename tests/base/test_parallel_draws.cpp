// score_draws_in_parallel (base/metrics/parallel_draws.h): on any number of threads, draw b is
// the b-th of one serial sequence -- the draws draw_segments and count_draws make one after
// the other -- each scored exactly once, and the generator ends where the serial loop leaves it.
#include <gtest/gtest.h>

#include <cstdint>
#include <mutex>
#include <random>
#include <stdexcept>
#include <vector>

#include "base/metrics/bleu_segments.h"
#include "base/metrics/paired_bootstrap.h"
#include "base/metrics/parallel_draws.h"

namespace test_parallel_draws {
using fathom::score_draws_in_parallel;

TEST(ParallelDraws, EveryThreadCountScoresTheSerialDrawsOnce) {
  const size_t segments = 37;
  const int samples = 23;  // not a multiple of any batch
  std::mt19937_64 serial(99);
  std::vector<std::vector<uint32_t>> expected;
  std::vector<size_t> drawn(segments);
  for (int b = 0; b < samples; ++b) {
    fathom::draw_segments(drawn, 1, serial);
    expected.emplace_back(segments);
    fathom::count_draws(drawn, expected.back());
  }
  for (int threads : {1, 2, 3, 5, 64}) {
    std::mt19937_64 random(99);
    std::vector<std::vector<uint32_t>> got(samples);
    std::vector<int> calls(samples, 0);
    std::mutex guard;  // the test's own bookkeeping only; score() needs none
    score_draws_in_parallel(segments, samples, random, threads,
                            [&](int b, const std::vector<uint32_t>& times) {
                              std::lock_guard<std::mutex> lock(guard);
                              got[static_cast<size_t>(b)] = times;
                              ++calls[static_cast<size_t>(b)];
                            });
    for (int b = 0; b < samples; ++b) {
      EXPECT_EQ(calls[static_cast<size_t>(b)], 1) << threads << " threads, draw " << b;
      EXPECT_EQ(got[static_cast<size_t>(b)], expected[static_cast<size_t>(b)])
          << threads << " threads, draw " << b;
    }
    EXPECT_EQ(random(), std::mt19937_64(serial)()) << threads << " threads";
  }
}

// A scorer's throw on a helper thread reaches the caller (not std::terminate).
TEST(ParallelDraws, AScorersErrorReachesTheCaller) {
  std::mt19937_64 random(1);
  EXPECT_THROW(score_draws_in_parallel(5, 9, random, 3,
                                       [](int b, const std::vector<uint32_t>&) {
                                         if (b == 7) throw std::runtime_error("draw 7");
                                       }),
               std::runtime_error);
}

}  // namespace test_parallel_draws
