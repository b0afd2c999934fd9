#include "experiments/run_agreement.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <limits>
#include <map>

#include "base/util/strings.h"
#include "db/metric_names.h"
#include "db/store.h"

namespace fathom::experiments {
namespace {

using Series = std::vector<db::MetricPoint>;  // by step

// Each compared metric's series. A run's rows come from the store by (name, step); sorting
// here keeps any order correct and costs little on sorted input.
std::map<std::string, Series> by_metric(const std::vector<db::MetricRow>& rows) {
  std::map<std::string, Series> out;
  for (const auto& [step, name, value, wall] : rows)
    if (!db::metric::measures_the_machine(name)) out[name].push_back({step, value, wall});
  auto by_step = [](const db::MetricPoint& x, const db::MetricPoint& y) { return x.step < y.step; };
  for (auto& [name, series] : out)
    if (!std::is_sorted(series.begin(), series.end(), by_step))
      std::stable_sort(series.begin(), series.end(), by_step);
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

namespace {

// One metric recorded by both runs: merged into `out` by step. Metrics must come in name order
// (a later one replaces the first departure only at an earlier update).
void compare_metric(const std::string& name, const Series& sa, const Series& sb,
                    RunAgreement& out) {
  ++out.metrics;
  size_t i = 0, j = 0, matched = 0;
  std::optional<std::pair<size_t, size_t>> last;  // the last common update's indices
  while (i < sa.size() && j < sb.size()) {        // a merge of the two step orders
    if (sa[i].step != sb[j].step) {
      (sa[i].step < sb[j].step ? i : j) += 1;
      continue;
    }
    const int64_t step = sa[i].step;
    const double relative = relative_difference(sa[i].value, sb[j].value);
    if (relative > out.tolerance && (!out.first_departure || step < out.first_departure->step))
      out.first_departure = CurvePoint{step, name, sa[i].value, sb[j].value, relative};
    out.through = std::max(out.through, step);
    last = {i, j};
    ++i, ++j, ++matched;
  }
  out.values += matched;
  out.unmatched_values += static_cast<int64_t>(sa.size() + sb.size() - 2 * matched);
  if (!last) return;
  const auto& [end_a, end_b] = *last;
  const double relative = relative_difference(sa[end_a].value, sb[end_b].value);
  if (relative > out.tolerance)
    out.apart_at_end.push_back(
        CurvePoint{sa[end_a].step, name, sa[end_a].value, sb[end_b].value, relative});
}

void sort_apart_at_end(RunAgreement& out) {
  std::stable_sort(
      out.apart_at_end.begin(), out.apart_at_end.end(),
      [](const CurvePoint& x, const CurvePoint& y) { return x.relative > y.relative; });
}

// The compared metrics' names of a run, in byte order.
std::vector<std::string> compared_names(const db::Store& store, int64_t run) {
  std::vector<std::string> names;
  for (auto& name : store.metric_names(run))
    if (!db::metric::measures_the_machine(name)) names.push_back(std::move(name));
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

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
    if (found != series_b.end()) compare_metric(name, sa, found->second, out);
  }
  sort_apart_at_end(out);
  return out;
}

std::vector<RunAgreement> compare_stored_trajectories(const db::Store& store, int64_t first,
                                                      const std::vector<int64_t>& others,
                                                      double tolerance) {
  std::vector<RunAgreement> out(others.size());
  const std::vector<std::string> names_first = compared_names(store, first);
  std::vector<std::vector<std::string>> names(others.size());
  for (size_t k = 0; k < others.size(); ++k) {
    out[k].tolerance = tolerance;
    names[k] = compared_names(store, others[k]);
    std::set_difference(names_first.begin(), names_first.end(), names[k].begin(), names[k].end(),
                        std::back_inserter(out[k].only_in_a));
    std::set_difference(names[k].begin(), names[k].end(), names_first.begin(), names_first.end(),
                        std::back_inserter(out[k].only_in_b));
  }
  // Metric by metric: the first run's series read once, each other run's beside it, so that
  // no more than two series are held at a time however long the runs.
  for (const std::string& name : names_first) {
    std::optional<Series> series_first;
    for (size_t k = 0; k < others.size(); ++k) {
      if (!std::binary_search(names[k].begin(), names[k].end(), name)) continue;
      if (!series_first) series_first = store.metric_series(first, name);
      compare_metric(name, *series_first, store.metric_series(others[k], name), out[k]);
    }
  }
  for (auto& agreement : out) sort_apart_at_end(agreement);
  return out;
}

RunAgreement compare_stored_trajectories(const db::Store& store, int64_t a, int64_t b,
                                         double tolerance) {
  return compare_stored_trajectories(store, a, std::vector<int64_t>{b}, tolerance).front();
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
