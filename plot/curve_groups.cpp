#include "plot/curve_groups.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "base/util/error.h"

namespace fathom::plot {

Band parse_band(const std::string& text, const std::string& field) {
  if (text == "std") return Band::Std;
  if (text == "minmax" || text == "min-max") return Band::MinMax;
  if (text == "none") return Band::None;
  throw InputError("", 0, field, "expected std, minmax or none, got '" + text + "'");
}

std::string band_name(Band band) {
  switch (band) {
    case Band::Std:
      return "std";
    case Band::MinMax:
      return "minmax";
    case Band::None:
      break;
  }
  return "";
}

void CurveGroup::Sums::add(double px, double py) {
  if (count == 0) min = max = py;
  min = std::min(min, py);
  max = std::max(max, py);
  ++count;
  x += px;
  y += py;
  yy += py * py;
}

void CurveGroup::add_member(std::string label, const MemberPoints* points, bool diverged,
                            bool done) {
  members_.push_back(Member{std::move(label), points, diverged, done || diverged});
}

void CurveGroup::set_member_state(size_t member, bool diverged, bool done) {
  members_.at(member).diverged = diverged;
  members_.at(member).done = done || diverged;
}

void CurveGroup::add_interpolated(const Member& m, int64_t step, Sums& sums) const {
  const MemberPoints& p = *m.points;
  // The first of m's finite points past `step`; the caller made sure one lies on each side.
  size_t lo = 0, hi = m.finite - 1;
  while (hi - lo > 1) {
    const size_t mid = (lo + hi) / 2;
    (p.step(mid) < step ? lo : hi) = mid;
  }
  const double t = double(step - p.step(lo)) / double(p.step(hi) - p.step(lo));
  sums.add(p.x(lo) + t * (p.x(hi) - p.x(lo)), p.y(lo) + t * (p.y(hi) - p.y(lo)));
}

void CurveGroup::take(Member& m) {
  const MemberPoints& p = *m.points;
  const size_t n = p.size();
  for (size_t j = m.taken; j < n; ++j) {
    const int64_t s = p.step(j);
    const double y = p.y(j);
    m.last_step = s, m.last_y = y;
    if (m.ended) continue;
    if (!std::isfinite(y)) {
      m.ended = true;  // blew up: the member's curve ends at its last finite point
      continue;
    }
    const double x = p.x(j);
    Steps::iterator at;
    bool inserted;
    if (m.finite > 0) {
      // Steps other members logged between this member's previous point and this one; walked
      // from the previous point's entry, so a point costs O(1) where the steps line up.
      const int64_t s0 = p.step(m.finite - 1);
      const double x0 = p.x(m.finite - 1), y0 = p.y(m.finite - 1);
      auto it = std::next(m.at);
      for (; it != at_.end() && it->first < s; ++it) {
        const double t = double(it->first - s0) / double(s - s0);
        it->second.add(x0 + t * (x - x0), y0 + t * (y - y0));
      }
      inserted = it == at_.end() || it->first != s;
      at = inserted ? at_.emplace_hint(it, s, Sums{}) : it;
    } else {
      std::tie(at, inserted) = at_.try_emplace(s);
    }
    at->second.add(x, y);
    m.at = at;
    m.finite = j + 1;
    if (!inserted) continue;
    // A step no member had logged: the members whose curves span it count there too.
    for (const Member& o : members_)
      if (&o != &m && o.finite >= 2 && o.points->step(0) < s && s < o.points->step(o.finite - 1))
        add_interpolated(o, s, at->second);
  }
  m.taken = n;
}

bool CurveGroup::update() {
  for (const Member& m : members_) {
    const MemberPoints& p = *m.points;
    if (p.size() < m.taken) return false;
    if (m.taken > 0) {
      const double y = p.y(m.taken - 1);
      const bool same_y = y == m.last_y || (std::isnan(y) && std::isnan(m.last_y));
      if (p.step(m.taken - 1) != m.last_step || !same_y) return false;
    }
  }
  for (Member& m : members_) take(m);
  return true;
}

Curve CurveGroup::curve(const std::string& metric) const {
  Curve c;
  c.metric = metric;
  c.colour_key = label_;
  const int n = static_cast<int>(members_.size());
  int diverged = 0;
  for (const Member& m : members_) {
    c.members.push_back(m.label);
    if (!m.diverged && !m.ended) continue;
    ++diverged;
    if (m.finite == 0) continue;  // nothing finite to mark
    c.ends.push_back({m.points->x(m.finite - 1), m.points->y(m.finite - 1), m.label});
  }
  c.label = label_ + " (n=" + std::to_string(n) +
            (diverged ? ", " + std::to_string(diverged) + " diverged" : "") + ")";

  bool started = false;
  for (const auto& [step, sums] : at_) {
    if (2 * sums.count < n) {
      if (!started) continue;  // fewer than half have got here yet
      // Ended for good when even the members still to come could not make up half.
      int gone = 0;
      for (const Member& m : members_)
        if ((m.done || m.ended) && (m.finite == 0 || m.points->step(m.finite - 1) < step)) ++gone;
      c.stopped_early = 2 * (n - gone) < n;
      break;
    }
    started = true;
    const double mean = sums.y / sums.count;
    c.step.push_back(sums.x / sums.count);
    c.value.push_back(mean);
    c.count.push_back(sums.count);
    if (band_ == Band::Std) {
      // Sample std (seeds are a sample, as in the tables); one member: no spread to show.
      const double var = sums.count > 1 ? (sums.yy - sums.y * mean) / (sums.count - 1) : 0.0;
      const double sd = std::sqrt(std::max(var, 0.0));
      // A quantity no member took at or below zero (a learning rate, a perplexity) gets no
      // band there: with few, spread seeds mean - sd can fall below zero, which is no value
      // the quantity has and which a log axis cannot draw (issue 58 item 9). The edge then
      // stops at the lowest member (at zero for a quantity that reached zero).
      double lo = mean - sd;
      if (sums.min > 0 && lo <= 0)
        lo = sums.min;
      else if (sums.min >= 0 && lo < 0)
        lo = 0;
      c.band_lo.push_back(lo);
      c.band_hi.push_back(mean + sd);
    } else if (band_ == Band::MinMax) {
      c.band_lo.push_back(sums.min);
      c.band_hi.push_back(sums.max);
    }
  }
  return c;
}

}  // namespace fathom::plot
