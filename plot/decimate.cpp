#include "plot/decimate.h"

#include <algorithm>
#include <cmath>

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

}  // namespace fathom::plot
