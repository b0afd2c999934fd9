#include "experiments/run_agreement.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

#include "base/util/strings.h"
#include "db/metric_names.h"

namespace fathom::experiments {
namespace {

using Series = std::vector<std::pair<int64_t, double>>;  // (step, value), by step

// Each compared metric's series. A run's rows come from the store by (name, step); sorting
// here keeps any order correct and costs little on sorted input.
std::map<std::string, Series> by_metric(const std::vector<db::MetricRow>& rows) {
  std::map<std::string, Series> out;
  for (const auto& [step, name, value, wall] : rows)
    if (!db::metric::measures_the_machine(name)) out[name].emplace_back(step, value);
  for (auto& [name, series] : out)
    if (!std::is_sorted(series.begin(), series.end())) std::sort(series.begin(), series.end());
  return out;
}

double relative_difference(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return 0;
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::infinity();
  if (a == b) return 0;  // equal infinities too
  const double scale = std::max(std::abs(a), std::abs(b));
  return std::isfinite(scale) ? std::abs(a - b) / scale : std::numeric_limits<double>::infinity();
}

std::string number(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

// With its trailing zeros: 5.00000 beside 5.00001, not 5.
std::string number_kept(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%#.*g", digits, v);
  return buf;
}

std::string with_commas(size_t n) {  // 1250 -> "1,250"
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// "update 10, grad_norm 1.2345678 (#1) against 1.2345679 (#2), relative 8.1e-08": enough
// digits that the two values read differently.
std::string point_text(const CurvePoint& p, const std::string& a, const std::string& b) {
  int digits = 4;
  while (digits < 17 && number(p.a, digits) == number(p.b, digits)) ++digits;
  return "update " + std::to_string(p.step) + ", " + p.metric + " " + number_kept(p.a, digits) +
         " (" + a + ") against " + number_kept(p.b, digits) + " (" + b + "), relative " +
         number(p.relative, 2);
}

}  // namespace

bool values_agree(double a, double b, double tolerance) {
  return relative_difference(a, b) <= tolerance;
}

RunAgreement compare_trajectories(const std::vector<db::MetricRow>& a,
                                  const std::vector<db::MetricRow>& b, double tolerance) {
  RunAgreement out;
  out.tolerance = tolerance;
  const auto series_a = by_metric(a), series_b = by_metric(b);
  for (const auto& [name, s] : series_a)
    if (!series_b.count(name)) out.only_in_a.push_back(name);
  for (const auto& [name, s] : series_b)
    if (!series_a.count(name)) out.only_in_b.push_back(name);
  for (const auto& [name, sa] : series_a) {
    const auto found = series_b.find(name);
    if (found == series_b.end()) continue;
    const Series& sb = found->second;
    ++out.metrics;
    size_t i = 0, j = 0, matched = 0;
    std::optional<std::pair<size_t, size_t>> last;  // the last common update's indices
    while (i < sa.size() && j < sb.size()) {        // a merge of the two step orders
      if (sa[i].first != sb[j].first) {
        (sa[i].first < sb[j].first ? i : j) += 1;
        continue;
      }
      const int64_t step = sa[i].first;
      const double relative = relative_difference(sa[i].second, sb[j].second);
      // Names come in order: a later metric replaces the departure only at an earlier update.
      if (relative > tolerance && (!out.first_departure || step < out.first_departure->step))
        out.first_departure = CurvePoint{step, name, sa[i].second, sb[j].second, relative};
      out.through = std::max(out.through, step);
      last = {i, j};
      ++i, ++j, ++matched;
    }
    out.values += matched;
    out.unmatched_values += static_cast<int64_t>(sa.size() + sb.size() - 2 * matched);
    if (!last) continue;
    const auto& [end_a, end_b] = *last;
    const double relative = relative_difference(sa[end_a].second, sb[end_b].second);
    if (relative > tolerance)
      out.apart_at_end.push_back(
          CurvePoint{sa[end_a].first, name, sa[end_a].second, sb[end_b].second, relative});
  }
  std::stable_sort(
      out.apart_at_end.begin(), out.apart_at_end.end(),
      [](const CurvePoint& x, const CurvePoint& y) { return x.relative > y.relative; });
  return out;
}

std::string describe_agreement(const RunAgreement& r, const std::string& a, const std::string& b) {
  if (r.values == 0)
    return "no curve values to compare: the runs recorded no metric at a common update";
  const std::string within =
      r.tolerance > 0 ? "within relative " + number(r.tolerance, 2) : "identical";
  const std::string counted = with_commas(r.values) + " values of " + with_commas(r.metrics) +
                              " metrics through update " + std::to_string(r.through);
  std::string text;
  if (r.agrees()) {
    text = within + ": " + counted;
  } else {
    text = "first recorded difference at " + point_text(*r.first_departure, a, b) + " (of " +
           counted + ")";
    if (!r.apart_at_end.empty()) {
      text += "; at the end";
      const size_t shown = std::min<size_t>(2, r.apart_at_end.size());
      for (size_t i = 0; i < shown; ++i)
        text += std::string(i ? "; " : " ") + point_text(r.apart_at_end[i], a, b);
      if (r.apart_at_end.size() > shown)
        text += " (and " + std::to_string(r.apart_at_end.size() - shown) + " more metrics)";
    }
  }
  if (r.unmatched_values > 0)
    text += "; " + std::to_string(r.unmatched_values) +
            " values at updates only one run recorded were not compared";
  if (!r.only_in_a.empty()) text += "; only " + a + " recorded " + join(r.only_in_a, ", ");
  if (!r.only_in_b.empty()) text += "; only " + b + " recorded " + join(r.only_in_b, ", ");
  return text;
}

nlohmann::json agreement_json(const RunAgreement& r) {
  auto point = [](const CurvePoint& p) {
    return nlohmann::json{
        {"update", p.step}, {"metric", p.metric}, {"values", {p.a, p.b}}, {"relative", p.relative}};
  };
  nlohmann::json j{{"agrees", r.agrees()},         {"tolerance", r.tolerance},
                   {"through", r.through},         {"metrics", r.metrics},
                   {"values", r.values},           {"unmatched_values", r.unmatched_values},
                   {"only_in_first", r.only_in_a}, {"only_in_this", r.only_in_b}};
  j["first_departure"] = r.first_departure ? point(*r.first_departure) : nlohmann::json();
  j["apart_at_end"] = nlohmann::json::array();
  for (const auto& p : r.apart_at_end) j["apart_at_end"].push_back(point(p));
  return j;
}

}  // namespace fathom::experiments
