#include "plot/decimate.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace fathom::plot {

std::vector<size_t> decimate_minmax_indices(const std::vector<double>& x,
                                            const std::vector<double>& y, int buckets) {
  const size_t n = std::min(x.size(), y.size());
  std::vector<size_t> keep;
  if (buckets <= 0 || n <= 4 * static_cast<size_t>(buckets)) {
    keep.resize(n);
    for (size_t i = 0; i < n; ++i) keep[i] = i;
    return keep;
  }
  const double lo = x.front(), hi = x[n - 1];
  const double width = (hi - lo) / buckets;
  // Bucket of a point; the last x belongs to the last bucket.
  auto bucket_of = [&](size_t i) {
    if (!(width > 0)) return 0;
    return std::min(buckets - 1, static_cast<int>((x[i] - lo) / width));
  };
  size_t i = 0;
  while (i < n) {
    const int b = bucket_of(i);
    size_t first = i, last = i;
    size_t min_i = n, max_i = n, nan_i = n;
    for (; i < n && bucket_of(i) == b; ++i) {
      last = i;
      if (std::isnan(y[i])) {
        if (nan_i == n) nan_i = i;
        continue;
      }
      if (min_i == n || y[i] < y[min_i]) min_i = i;
      if (max_i == n || y[i] > y[max_i]) max_i = i;
    }
    size_t picked[] = {first, min_i, max_i, nan_i, last};
    std::sort(std::begin(picked), std::end(picked));
    for (size_t p : picked)
      if (p != n && (keep.empty() || keep.back() != p)) keep.push_back(p);
  }
  return keep;
}

XY decimate_minmax(const std::vector<double>& x, const std::vector<double>& y, int buckets) {
  XY out;
  for (size_t i : decimate_minmax_indices(x, y, buckets)) {
    out.x.push_back(x[i]);
    out.y.push_back(y[i]);
  }
  return out;
}

MinMaxDecimator::MinMaxDecimator(int buckets, double x0, double width)
    : buckets_(std::max(1, buckets)), x0_(x0), width_(width > 0 ? width : 1.0) {}

void MinMaxDecimator::merge(Bucket& into, const Bucket& later) {
  if (!later.used) return;
  if (!into.used) {
    into = later;
    return;
  }
  into.last = later.last;
  if (later.finite) {
    if (!into.finite) {
      into.min = later.min, into.max = later.max, into.finite = true;
    } else {
      if (later.min.y < into.min.y) into.min = later.min;
      if (later.max.y > into.max.y) into.max = later.max;
    }
  }
  if (later.nan && !into.nan) into.nan_at = later.nan_at, into.nan = true;
}

void MinMaxDecimator::coarsen() {
  const size_t half = (bucket_.size() + 1) / 2;
  for (size_t i = 0; i < half; ++i) {
    Bucket b = bucket_[2 * i];
    if (2 * i + 1 < bucket_.size()) merge(b, bucket_[2 * i + 1]);
    bucket_[i] = b;
  }
  bucket_.resize(half);
  width_ *= 2;
}

void MinMaxDecimator::add(double x, double y) {
  const double offset = std::max(0.0, x - x0_);
  while (offset / width_ >= 2.0 * buckets_) coarsen();
  const size_t k = static_cast<size_t>(offset / width_);
  if (k >= bucket_.size()) bucket_.resize(k + 1);
  Bucket& b = bucket_[k];
  const Pick p{count_++, x, y};
  if (!b.used) b.first = p, b.used = true;
  b.last = p;
  if (std::isnan(y)) {
    if (!b.nan) b.nan_at = p, b.nan = true;
  } else if (!b.finite) {
    b.min = b.max = p, b.finite = true;
  } else {
    if (y < b.min.y) b.min = p;
    if (y > b.max.y) b.max = p;
  }
}

XY MinMaxDecimator::points() const {
  XY out;
  out.x.reserve(4 * bucket_.size());
  out.y.reserve(4 * bucket_.size());
  size_t last_seq = SIZE_MAX;
  for (const Bucket& b : bucket_) {
    if (!b.used) continue;
    Pick picked[5];
    int n = 0;
    picked[n++] = b.first;
    if (b.finite) picked[n++] = b.min, picked[n++] = b.max;
    if (b.nan) picked[n++] = b.nan_at;
    picked[n++] = b.last;
    for (int i = 1; i < n; ++i)  // insertion sort by order of arrival (n <= 5)
      for (int j = i; j > 0 && picked[j].seq < picked[j - 1].seq; --j)
        std::swap(picked[j], picked[j - 1]);
    for (int i = 0; i < n; ++i) {
      if (picked[i].seq == last_seq) continue;
      last_seq = picked[i].seq;
      out.x.push_back(picked[i].x);
      out.y.push_back(picked[i].y);
    }
  }
  return out;
}

XY bucket_extremes(const XY& points, double x0, double width, bool lower) {
  XY out;
  long bucket = -1;
  for (size_t i = 0; i < points.x.size(); ++i) {
    const double y = points.y[i];
    const long b = width > 0 ? static_cast<long>(std::floor((points.x[i] - x0) / width))
                             : static_cast<long>(i);
    if (b != bucket || out.y.empty()) {
      bucket = b;
      out.x.push_back(points.x[i]);
      out.y.push_back(y);
      continue;
    }
    double& kept = out.y.back();
    // A NaN (a gap) is kept: it is what splits the fill.
    if (std::isnan(kept)) continue;
    if (std::isnan(y) || (lower ? y < kept : y > kept)) {
      kept = y;
      out.x.back() = points.x[i];
    }
  }
  return out;
}

}  // namespace fathom::plot
