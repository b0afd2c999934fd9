#include "plot/curve_x.h"

#include <algorithm>
#include <limits>

#include "base/util/error.h"

namespace fathom::plot {

XAxis parse_x_axis(const std::string& text, const std::string& field) {
  if (text == "update" || text == "step") return XAxis::Update;
  if (text == "tokens") return XAxis::Tokens;
  if (text == "time") return XAxis::Time;
  throw InputError("", 0, field, "expected update, tokens or time, got '" + text + "'");
}

std::string x_axis_name(XAxis axis) {
  switch (axis) {
    case XAxis::Tokens:
      return "tokens";
    case XAxis::Time:
      return "time";
    case XAxis::Update:
      break;
  }
  return "update";
}

std::string x_axis_label(XAxis axis) {
  switch (axis) {
    case XAxis::Tokens:
      return "target tokens seen";
    case XAxis::Time:
      return "time since the run's start";
    case XAxis::Update:
      break;
  }
  return "update";
}

RunX::RunX(XAxis axis, double started_at, const std::vector<db::MetricPoint>* tokens)
    : axis_(axis), started_at_(started_at), tokens_(tokens) {}

bool RunX::available() const {
  if (axis_ == XAxis::Tokens) return tokens_ && !tokens_->empty();
  if (axis_ == XAxis::Time) return started_at_ > 0;
  return true;
}

double RunX::at(const db::MetricPoint& point) const {
  const double step = static_cast<double>(point.step);
  if (axis_ == XAxis::Update) return step;
  if (axis_ == XAxis::Time) return point.wall_time - started_at_;
  if (!available()) return std::numeric_limits<double>::quiet_NaN();
  // target_tokens is logged at every log and validation point, so most steps are exact; others
  // (per-layer gradient norms) lie between two, where tokens grow about linearly.
  const auto& t = *tokens_;
  auto hi = std::lower_bound(t.begin(), t.end(), point.step,
                             [](const db::MetricPoint& p, int64_t s) { return p.step < s; });
  if (hi != t.end() && hi->step == point.step) return hi->value;
  if (hi == t.begin()) return hi->step > 0 ? hi->value * step / static_cast<double>(hi->step) : 0.0;
  const auto lo = hi - 1;
  if (hi == t.end())
    return lo->step > 0 ? lo->value * step / static_cast<double>(lo->step) : lo->value;
  const double f = (step - lo->step) / static_cast<double>(hi->step - lo->step);
  return lo->value + f * (hi->value - lo->value);
}

double RunX::at_step(const std::vector<db::MetricPoint>& points, int64_t step) const {
  if (axis_ == XAxis::Update || points.empty()) return static_cast<double>(step);
  auto after = std::upper_bound(points.begin(), points.end(), step,
                                [](int64_t s, const db::MetricPoint& p) { return s < p.step; });
  return at(after == points.begin() ? points.front() : *(after - 1));
}

}  // namespace fathom::plot
