// score_draws_in_parallel and visit_draws_in_parallel (base/metrics/parallel_draws.h), and the
// paired bootstrap on them: on any number of threads, draw b is
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

// Blocks too: draw b is the b-th serial draw_segments of that block length, each visited once,
// by a thread numbered within the count asked for.
TEST(ParallelDraws, BlockDrawsAreTheSerialOnesOnEveryThreadCount) {
  const size_t segments = 41, block = 6;
  const int samples = 19;
  std::mt19937_64 serial(7);
  std::vector<std::vector<size_t>> expected(samples, std::vector<size_t>(segments));
  for (auto& drawn : expected) fathom::draw_segments(drawn, block, serial);
  for (int threads : {1, 2, 4, 64}) {
    std::mt19937_64 random(7);
    std::vector<std::vector<size_t>> got(samples);
    std::vector<int> calls(samples, 0);
    int bad_thread = 0;
    std::mutex guard;
    fathom::visit_draws_in_parallel(segments, block, samples, random, threads,
                                    [&](int b, const std::vector<size_t>& drawn, int thread) {
                                      std::lock_guard<std::mutex> lock(guard);
                                      got[static_cast<size_t>(b)] = drawn;
                                      ++calls[static_cast<size_t>(b)];
                                      bad_thread += thread < 0 || thread >= threads ? 1 : 0;
                                    });
    EXPECT_EQ(bad_thread, 0) << threads << " threads";
    for (int b = 0; b < samples; ++b) {
      EXPECT_EQ(calls[static_cast<size_t>(b)], 1) << threads << " threads, draw " << b;
      EXPECT_EQ(got[static_cast<size_t>(b)], expected[static_cast<size_t>(b)])
          << threads << " threads, draw " << b;
    }
    EXPECT_EQ(random(), std::mt19937_64(serial)()) << threads << " threads";
  }
}

// The paired bootstrap scored on several threads is the serial one to the last bit: its
// p-value, intervals and means, with single draws and with blocks studentised by an influence.
TEST(ParallelDraws, APairedBootstrapOnThreadsIsTheSerialOne) {
  const size_t n = 300;
  std::mt19937_64 make(3);
  std::normal_distribution<double> noise(0, 1);
  std::vector<double> a(n), b(n), influence(n);
  double previous = 0;
  for (size_t k = 0; k < n; ++k) {
    previous = 0.6 * previous + noise(make);  // serially dependent, so blocks matter
    a[k] = 3 + previous;
    b[k] = 2.9 + previous + 0.5 * noise(make);
  }
  double mean_a = 0, mean_b = 0;
  for (size_t k = 0; k < n; ++k) mean_a += a[k] / n, mean_b += b[k] / n;
  for (size_t k = 0; k < n; ++k) influence[k] = (b[k] - mean_b) - (a[k] - mean_a);
  const auto score = [&](const std::vector<size_t>& drawn) {
    double sa = 0, sb = 0;
    for (size_t k : drawn) sa += a[k], sb += b[k];
    return std::pair<double, double>{sa / drawn.size(), sb / drawn.size()};
  };
  for (size_t block : {size_t{1}, size_t{8}}) {
    const std::vector<double> psi = block > 1 ? influence : std::vector<double>{};
    const auto serial = fathom::paired_bootstrap(n, {mean_a, mean_b}, score, 201, 11, block, psi);
    EXPECT_EQ(serial.studentised, block > 1);
    for (int threads : {2, 3, 16}) {
      const auto on_threads =
          fathom::paired_bootstrap(n, {mean_a, mean_b}, score, 201, 11, block, psi, threads);
      EXPECT_EQ(on_threads.p, serial.p) << block << ", " << threads;
      EXPECT_EQ(on_threads.difference_low, serial.difference_low) << block << ", " << threads;
      EXPECT_EQ(on_threads.difference_high, serial.difference_high) << block << ", " << threads;
      EXPECT_EQ(on_threads.baseline.mean, serial.baseline.mean) << block << ", " << threads;
      EXPECT_EQ(on_threads.system.ci, serial.system.ci) << block << ", " << threads;
    }
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
