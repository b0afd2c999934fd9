#pragma once
// Seed groups: the runs of one configuration (by default every sweep axis but the seed) drawn
// as one curve -- the members' mean, a shaded band (sample std, or min to max), the member
// count in the legend. A member that diverged is marked where it stopped; it leaves the mean
// there instead of dragging it to infinity. The mean is drawn from the first point at least
// half the members have reached to the last one at least half the members reach; where it
// ends because members stopped for good (not merely have not got there yet, as in a live
// sweep), its last point carries a hollow marker.
//
// Members are aligned by update step, which every run of a sweep logs at the same points:
// at a step a member did not log but that lies between two of its points, its value (and x)
// is interpolated linearly. The group's x at a step is the members' mean x there -- the step
// itself, or the mean tokens seen / seconds since start for the other x axes.
//
// The group reads its members' points in place and takes in only what was appended since the
// last update(): a live dashboard of 1,000 runs in 20 groups costs O(new points) per poll.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "plot/figure.h"

namespace fathom::plot {

enum class Band { Std, MinMax, None };

// "std", "minmax" (also "min-max") or "none"; anything else throws InputError naming `field`.
Band parse_band(const std::string& text, const std::string& field = "--band");
// What CurveFigure::band holds: "std", "minmax" or "".
std::string band_name(Band band);

// A member's curve as a group reads it: points by increasing step, each with the x it is drawn
// at and its value (NaN or Inf: the run blew up there; it leaves the group at its last finite
// point).
class MemberPoints {
 public:
  virtual ~MemberPoints() = default;
  virtual size_t size() const = 0;
  virtual int64_t step(size_t i) const = 0;
  virtual double x(size_t i) const = 0;
  virtual double y(size_t i) const = 0;
};

// MemberPoints over vectors the caller owns (exports, tests).
class VectorPoints : public MemberPoints {
 public:
  VectorPoints(std::vector<int64_t> steps, std::vector<double> x, std::vector<double> y)
      : steps_(std::move(steps)), x_(std::move(x)), y_(std::move(y)) {}
  size_t size() const override { return steps_.size(); }
  int64_t step(size_t i) const override { return steps_[i]; }
  double x(size_t i) const override { return x_[i]; }
  double y(size_t i) const override { return y_[i]; }

 private:
  std::vector<int64_t> steps_;
  std::vector<double> x_, y_;
};

class CurveGroup {
 public:
  CurveGroup(std::string label, Band band) : label_(std::move(label)), band_(band) {}
  // Members point into the group's own step table: moved, never copied.
  CurveGroup(CurveGroup&&) = default;
  CurveGroup& operator=(CurveGroup&&) = default;
  CurveGroup(const CurveGroup&) = delete;
  CurveGroup& operator=(const CurveGroup&) = delete;

  // Before the first update(). `points` is read in place and must outlive the group.
  // diverged: the run's outcome (its last finite point gets a marker); done: the run will log
  // no more points (finished, diverged, failed...), so a mean ending at its absence ended for good.
  void add_member(std::string label, const MemberPoints* points, bool diverged, bool done);
  // The run's state changed (it diverged or ended since add_member).
  void set_member_state(size_t member, bool diverged, bool done);

  // Takes in every member's points appended since the last call. Returns false, taking in
  // nothing, when a member's points were rewritten rather than appended (fewer than taken in,
  // or the last one taken in changed -- a resumed run): build the group again.
  bool update();

  // The group's curve: label "LABEL (n=N)" (", K diverged" when some did), colour_key LABEL.
  Curve curve(const std::string& metric) const;

  size_t size() const { return members_.size(); }

 private:
  struct Sums {
    int count = 0;
    double x = 0, y = 0, yy = 0, min = 0, max = 0;
    void add(double px, double py);
  };
  using Steps = std::map<int64_t, Sums>;
  struct Member {
    std::string label;
    const MemberPoints* points;
    bool diverged, done;
    size_t taken = 0;       // points taken in
    size_t finite = 0;      // of them, the leading finite ones (the member's curve)
    bool ended = false;     // met a non-finite value: takes in nothing more
    int64_t last_step = 0;  // of the last point taken in, to notice a rewrite
    double last_y = 0;
    Steps::iterator at{};  // the entry of its last finite point (finite > 0)
  };
  // Member m's (x, y) at `step`, strictly inside its finite points' range.
  void add_interpolated(const Member& m, int64_t step, Sums& sums) const;
  void take(Member& m);

  std::string label_;
  Band band_;
  std::vector<Member> members_;
  Steps at_;  // by step
};

}  // namespace fathom::plot
