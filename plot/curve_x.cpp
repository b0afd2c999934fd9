#include "plot/curve_x.h"

#include <algorithm>
#include <limits>

#include "base/util/error.h"
#include "db/metric_names.h"
#include "db/series_at_step.h"

namespace fathom::plot {

XAxis parse_x_axis(const std::string& text, const std::string& field) {
  if (text == "update" || text == "step") return XAxis::Update;
  if (text == "tokens") return XAxis::Tokens;
  if (text == "time") return XAxis::Time;
  if (text == "compute" || text == "flops") return XAxis::Compute;
  throw InputError("", 0, field, "expected update, tokens, compute or time, got '" + text + "'");
}

std::string x_axis_name(XAxis axis) {
  switch (axis) {
    case XAxis::Tokens:
      return "tokens";
    case XAxis::Time:
      return "time";
    case XAxis::Compute:
      return "compute";
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
    case XAxis::Compute:
      return "training compute (FLOPs)";
    case XAxis::Update:
      break;
  }
  return "update";
}

const std::string& x_series_metric(XAxis axis) {
  static const std::string none;
  if (axis == XAxis::Tokens) return db::metric::kTargetTokens;
  if (axis == XAxis::Compute) return db::metric::kTrainFlops;
  return none;
}

std::string x_unavailable_reason(XAxis axis) {
  if (axis == XAxis::Time) return "no start time";
  return "no " + x_series_metric(axis) + " curve (trained before Fathom logged it)";
}

RunX::RunX(XAxis axis, double started_at, const std::vector<db::MetricPoint>* series)
    : axis_(axis), started_at_(started_at), series_(series) {}

bool RunX::available() const {
  if (axis_ == XAxis::Tokens || axis_ == XAxis::Compute) return series_ && !series_->empty();
  if (axis_ == XAxis::Time) return started_at_ > 0;
  return true;
}

double RunX::at(const db::MetricPoint& point) const {
  const double step = static_cast<double>(point.step);
  if (axis_ == XAxis::Update) return step;
  if (axis_ == XAxis::Time) return point.wall_time - started_at_;
  if (!available()) return std::numeric_limits<double>::quiet_NaN();
  return db::series_at_step(*series_, point.step);
}

double RunX::at_step(const std::vector<db::MetricPoint>& points, int64_t step) const {
  if (axis_ == XAxis::Update || points.empty()) return static_cast<double>(step);
  auto after = std::upper_bound(points.begin(), points.end(), step,
                                [](int64_t s, const db::MetricPoint& p) { return s < p.step; });
  return at(after == points.begin() ? points.front() : *(after - 1));
}

}  // namespace fathom::plot
