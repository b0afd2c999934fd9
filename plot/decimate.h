#pragma once
// Min/max decimation for long series: split the x range into buckets (about one per pixel) and
// keep, in order, each bucket's first, minimum, maximum and last point. Drawn as a polyline the
// result has the same envelope as the full series, with at most 4 points per bucket.
#include <cstddef>
#include <vector>

namespace fathom::plot {

// Indices (ascending) of the points to keep. x must be non-decreasing. NaN y values are gaps:
// a bucket holding any keeps its first NaN too, so the gap survives. buckets <= 0 or a series
// no longer than 4 * buckets keeps every point.
std::vector<size_t> decimate_minmax_indices(const std::vector<double>& x,
                                            const std::vector<double>& y, int buckets);

struct XY {
  std::vector<double> x, y;
};

// The kept points themselves.
XY decimate_minmax(const std::vector<double>& x, const std::vector<double>& y, int buckets);

}  // namespace fathom::plot
