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

// One point per bucket of `width` from x0: the lowest (lower) or highest point of each. For a
// band's edges, whose fill costs by the vertex: the outer envelope, a quarter of the points.
XY bucket_extremes(const XY& points, double x0, double width, bool lower);

// The same min/max decimation, kept up to date as points are appended (a live training curve):
// each add() touches one bucket, so a new point costs O(1) instead of re-decimating the series.
// Buckets have a fixed width from x0; when a point falls past 2 * buckets of them, neighbours
// are merged in pairs and the width doubles (the first/min/max/last of a merged pair are
// those of the two halves, so nothing is lost: spikes stay). Between buckets and 2 * buckets
// buckets span the data once it is wide enough; at most 5 points are kept per bucket.
class MinMaxDecimator {
 public:
  // width: the starting bucket width in x (> 0); the decimation is exact below it.
  MinMaxDecimator(int buckets, double x0, double width);
  // x non-decreasing and >= x0; NaN y values are gaps (the bucket keeps its first NaN).
  void add(double x, double y);
  XY points() const;                       // the kept points, in order
  size_t count() const { return count_; }  // points added
  double width() const { return width_; }

 private:
  struct Pick {
    size_t seq;
    double x, y;
  };
  struct Bucket {
    bool used = false, finite = false, nan = false;
    Pick first, min, max, nan_at, last;
  };
  static void merge(Bucket& into, const Bucket& later);
  void coarsen();

  int buckets_;
  double x0_, width_;
  size_t count_ = 0;
  std::vector<Bucket> bucket_;
};

}  // namespace fathom::plot
