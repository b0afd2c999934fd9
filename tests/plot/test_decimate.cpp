// Min/max decimation and the debiased EMA on hand-made series.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "plot/decimate.h"
#include "plot/smoothing.h"

using namespace fathom::plot;

namespace test_decimate {

TEST(Decimate, ShortSeriesIsKeptWhole) {
  const std::vector<double> x{0, 1, 2}, y{3, 1, 2};
  EXPECT_EQ(decimate_minmax_indices(x, y, 10), (std::vector<size_t>{0, 1, 2}));
}

TEST(Decimate, KeepsFirstMinMaxLastOfEachBucket) {
  // x = 0..11 in 2 buckets of width 5.5: {0..5} and {6..11}.
  const std::vector<double> x{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  const std::vector<double> y{5, 9, 1, 4, 4, 6, 2, 2, 8, 0, 3, 7};
  // Bucket 1: first 0, max 1 (9), min 2 (1), last 5. Bucket 2: first 6, max 8, min 9, last 11.
  EXPECT_EQ(decimate_minmax_indices(x, y, 2), (std::vector<size_t>{0, 1, 2, 5, 6, 8, 9, 11}));
}

TEST(Decimate, MillionPointsKeepEnvelopeAndEndpoints) {
  const size_t n = 1000000;
  std::vector<double> x(n), y(n);
  for (size_t i = 0; i < n; ++i) {
    x[i] = static_cast<double>(i);
    y[i] = std::sin(i * 0.001) + ((i * 7919) % 1000) * 1e-3;  // a wave plus deterministic noise
  }
  const int buckets = 1000;
  const auto keep = decimate_minmax_indices(x, y, buckets);
  EXPECT_LE(keep.size(), 4u * buckets);
  EXPECT_EQ(keep.front(), 0u);
  EXPECT_EQ(keep.back(), n - 1);
  EXPECT_TRUE(std::is_sorted(keep.begin(), keep.end()));
  // Per bucket, the kept points span exactly the full min and max.
  const double width = (x.back() - x.front()) / buckets;
  std::vector<double> lo(buckets, 1e9), hi(buckets, -1e9), klo(buckets, 1e9), khi(buckets, -1e9);
  auto bucket = [&](size_t i) { return std::min(buckets - 1, static_cast<int>(x[i] / width)); };
  for (size_t i = 0; i < n; ++i)
    lo[bucket(i)] = std::min(lo[bucket(i)], y[i]), hi[bucket(i)] = std::max(hi[bucket(i)], y[i]);
  for (size_t i : keep)
    klo[bucket(i)] = std::min(klo[bucket(i)], y[i]),
    khi[bucket(i)] = std::max(khi[bucket(i)], y[i]);
  EXPECT_EQ(lo, klo);
  EXPECT_EQ(hi, khi);
}

TEST(Decimate, NaNGapSurvives) {
  std::vector<double> x(100), y(100, 1.0);
  for (size_t i = 0; i < 100; ++i) x[i] = static_cast<double>(i);
  y[50] = std::numeric_limits<double>::quiet_NaN();
  const XY kept = decimate_minmax(x, y, 5);
  EXPECT_EQ(std::count_if(kept.y.begin(), kept.y.end(), [](double v) { return std::isnan(v); }), 1);
}

TEST(MinMaxDecimator, StreamingKeepsASpikeEndpointsAndBoundsPoints) {
  // A live curve arrives point by point; a single divergence spike must stay visible.
  const int buckets = 300;
  MinMaxDecimator d(buckets, 0, 1.0);
  const size_t n = 200000, spike = 123457;
  double lo = 1e9;
  for (size_t i = 0; i < n; ++i) {
    const double y = i == spike ? 1e3 : 1.0 / (1 + i) + ((i * 7919) % 100) * 1e-4;
    lo = std::min(lo, y);
    d.add(static_cast<double>(i), y);
  }
  EXPECT_EQ(d.count(), n);
  const XY kept = d.points();
  EXPECT_LE(kept.x.size(), 5u * 2 * buckets);
  EXPECT_GT(kept.x.size(), 2u * buckets);  // not coarser than asked
  EXPECT_EQ(kept.x.front(), 0.0);
  EXPECT_EQ(kept.x.back(), static_cast<double>(n - 1));
  EXPECT_TRUE(std::is_sorted(kept.x.begin(), kept.x.end()));
  EXPECT_EQ(*std::max_element(kept.y.begin(), kept.y.end()), 1e3);  // the spike survives
  EXPECT_EQ(*std::min_element(kept.y.begin(), kept.y.end()), lo);
  EXPECT_NE(std::find(kept.x.begin(), kept.x.end(), static_cast<double>(spike)), kept.x.end());
}

TEST(MinMaxDecimator, SameEnvelopeAsBatchAndNaNGap) {
  // Per bucket of the streaming decimator's final width, min and max equal the full series'.
  const size_t n = 50000;
  MinMaxDecimator d(100, 0, 1.0);
  std::vector<double> y(n);
  for (size_t i = 0; i < n; ++i) {
    y[i] = std::sin(i * 0.01) + ((i * 31) % 17) * 0.01;
    if (i == 777) y[i] = std::numeric_limits<double>::quiet_NaN();
    d.add(static_cast<double>(i), y[i]);
  }
  const XY kept = d.points();
  const double w = d.width();
  std::map<long, std::pair<double, double>> full, got;
  auto put = [&](auto& m, double x, double v) {
    if (std::isnan(v)) return;
    auto [it, fresh] = m.try_emplace(static_cast<long>(x / w), v, v);
    it->second.first = std::min(it->second.first, v);
    it->second.second = std::max(it->second.second, v);
  };
  for (size_t i = 0; i < n; ++i) put(full, static_cast<double>(i), y[i]);
  for (size_t i = 0; i < kept.x.size(); ++i) put(got, kept.x[i], kept.y[i]);
  EXPECT_EQ(full, got);
  EXPECT_EQ(std::count_if(kept.y.begin(), kept.y.end(), [](double v) { return std::isnan(v); }), 1);
}

TEST(Ema, IncrementalEqualsBatch) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> v{3, 1, nan, 4, 1, 5, 9, 2, 6};
  const auto batch = debiased_ema(v, 0.7);
  DebiasedEma ema(0.7);
  for (size_t i = 0; i < v.size(); ++i) {
    const double x = ema.next(v[i]);
    if (std::isnan(batch[i]))
      EXPECT_TRUE(std::isnan(x));
    else
      EXPECT_DOUBLE_EQ(x, batch[i]);
  }
}

TEST(Ema, DebiasedByHand) {
  // w = 0.5: s1 = 0.5*2 = 1 -> 1/(1-0.5) = 2; s2 = 0.5 + 0.5*4 = 2.5 -> 2.5/0.75 = 10/3;
  // NaN passes through; s3 = 1.25 + 0.5*1 = 1.75 -> 1.75/0.875 = 2.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto out = debiased_ema({2, 4, nan, 1}, 0.5);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_DOUBLE_EQ(out[0], 2.0);
  EXPECT_DOUBLE_EQ(out[1], 10.0 / 3.0);
  EXPECT_TRUE(std::isnan(out[2]));
  EXPECT_DOUBLE_EQ(out[3], 2.0);
  EXPECT_EQ(debiased_ema({1, 5}, 0.0), (std::vector<double>{1, 5}));
}

TEST(Decimate, BucketExtremesKeepEachBucketsLowestOrHighestPoint) {
  // Buckets of width 2 from x = 0: {0, 1}, {2, 3}, {4}.
  const XY points{{0, 1, 2, 3, 4}, {5, 3, 7, 9, 1}};
  const XY low = bucket_extremes(points, 0, 2, true);
  EXPECT_EQ(low.x, (std::vector<double>{1, 2, 4}));
  EXPECT_EQ(low.y, (std::vector<double>{3, 7, 1}));
  const XY high = bucket_extremes(points, 0, 2, false);
  EXPECT_EQ(high.x, (std::vector<double>{0, 3, 4}));
  EXPECT_EQ(high.y, (std::vector<double>{5, 9, 1}));
  // A gap survives: a bucket holding a NaN keeps it, so the band's fill breaks there.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const XY gap = bucket_extremes(XY{{0, 1, 2}, {1, nan, 2}}, 0, 2, true);
  ASSERT_EQ(gap.y.size(), 2u);
  EXPECT_TRUE(std::isnan(gap.y[0]));
  EXPECT_EQ(gap.y[1], 2);
}

}  // namespace test_decimate
