#include "experiments/lr_sensitivity.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <tuple>

#include "base/metrics/statistics.h"
#include "base/util/error.h"
#include "base/util/strings.h"
#include "db/metric_names.h"
#include "db/metric_presentation.h"
#include "db/run_status.h"
#include "experiments/grid_optimum.h"
#include "experiments/value_at_budget.h"

namespace fathom::experiments {
namespace {

std::string lr_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// Two rates parsed from one sweep's text ("1e-3", "0.001") are the same rate.
bool same_rate(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(a, b); }

// The axes that tell curves apart: not the rate, the seed, or an axis with one value over the
// runs (every curve would repeat it).
std::set<std::string> curve_axes(const std::vector<TableRun>& runs) {
  std::map<std::string, std::set<std::string>> values;
  for (const auto& r : runs)
    if (r.axes.count(kLrKey))
      for (const auto& [key, value] : r.axes) values[key].insert(value);
  std::set<std::string> keys;
  for (const auto& [key, seen] : values) {
    const std::string& axis = key;  // a structured binding is no lambda capture before C++20
    const bool everywhere = std::all_of(runs.begin(), runs.end(), [&](const TableRun& r) {
      return !r.axes.count(kLrKey) || r.axes.count(axis) > 0;
    });
    if (key != kLrKey && key != "train.seed" && (seen.size() > 1 || !everywhere)) keys.insert(key);
  }
  return keys;
}

// "pre / xavier, encoder_layers=18": the values of the `named` axes (--label), then the other
// `keys` (curve_axes) as short key=value.
std::string curve_label(const TableRun& r, const std::set<std::string>& keys,
                        const std::vector<std::string>& named) {
  std::string label;
  for (const auto& key : named) {
    const auto it = r.axes.find(key);
    label += (label.empty() ? "" : " / ") + (it == r.axes.end() ? std::string("-") : it->second);
  }
  for (const auto& [key, value] : r.axes) {
    if (!keys.count(key) || std::find(named.begin(), named.end(), key) != named.end()) continue;
    const auto dot = key.rfind('.');
    label += (label.empty() ? "" : ", ") + (dot == std::string::npos ? key : key.substr(dot + 1)) +
             "=" + value;
  }
  return label.empty() ? "all runs" : label;
}

// The keys of --label ("a+b+c"), each an axis of some run.
std::vector<std::string> label_axes(const std::vector<TableRun>& runs, const std::string& label) {
  if (label.empty()) return {};
  std::set<std::string> known;
  for (const auto& r : runs)
    for (const auto& [key, value] : r.axes) known.insert(key);
  std::vector<std::string> keys = split(label, '+');
  for (auto& key : keys) {
    key = trim(key);  // "model.norm + model.init" as typed
    if (key == kLrKey)
      throw InputError("fathom export lr-sensitivity", 0, "--label",
                       std::string(kLrKey) + " is the x axis of every curve, not a label");
    if (!known.count(key))
      throw InputError("fathom export lr-sensitivity", 0, "--label",
                       "'" + key + "' is not an axis of the sweep (its axes: " +
                           join(std::vector<std::string>(known.begin(), known.end()), ", ") + ")");
  }
  return keys;
}

// Rate i's cell in log rate (sensitivity_over); `x` ascending, at least 2.
std::vector<double> log_cells(const std::vector<double>& x) {
  const size_t n = x.size();
  std::vector<double> w(n);
  for (size_t i = 0; i < n; ++i) {
    const double left = i == 0 ? x[1] - x[0] : x[i] - x[i - 1];
    const double right = i + 1 == n ? x[n - 1] - x[n - 2] : x[i + 1] - x[i];
    w[i] = (left + right) / 2;
  }
  return w;
}

double weighted_excess(const std::vector<double>& w, const std::vector<double>& losses) {
  const double best = *std::min_element(losses.begin(), losses.end());
  double sum = 0, total = 0;
  for (size_t i = 0; i < w.size(); ++i) {
    sum += w[i] * (losses[i] - best);
    total += w[i];
  }
  return sum / total;
}

std::vector<double> log_rates(const std::vector<double>& rates) {
  std::vector<double> x;
  for (size_t i = 0; i < rates.size(); ++i) {
    if (!(rates[i] > 0) || !std::isfinite(rates[i]))
      throw InputError("fathom export lr-sensitivity", 0, "--range",
                       "learning rate " + lr_number(rates[i]) + " is not a positive number");
    if (i > 0 && !(rates[i] > rates[i - 1]))
      throw InputError("fathom export lr-sensitivity", 0, "--range",
                       "learning rates must be distinct and ascending (" + lr_number(rates[i - 1]) +
                           ", then " + lr_number(rates[i]) + ")");
    x.push_back(std::log(rates[i]));
  }
  return x;
}

// The range the curves are compared over: the intersection of the curves' own (those of two
// or more rates); nullopt when they share less than an interval.
std::optional<std::pair<double, double>> common_range(const std::vector<LrCurve>& curves) {
  double lo = 0, hi = std::numeric_limits<double>::infinity();
  bool any = false;
  for (const auto& c : curves) {
    if (c.points.size() < 2) continue;
    any = true;
    lo = std::max(lo, c.points.front().lr);
    hi = std::min(hi, c.points.back().lr);
  }
  if (!any || !(hi > lo) || same_rate(lo, hi)) return std::nullopt;
  return std::pair{lo, hi};
}

// The curve's sensitivity and interval over [lo, hi].
void judge_over(LrCurve& c, double lo, double hi) {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  c.sensitivity = c.ci_lo = c.ci_hi = nan;
  c.in_range = 0;
  if (c.points.empty()) return;
  // A curve that stops short of either end would be judged on part of the range only.
  const bool spans = (c.points.front().lr <= lo || same_rate(c.points.front().lr, lo)) &&
                     (c.points.back().lr >= hi || same_rate(c.points.back().lr, hi));
  std::vector<double> rates, means, caps;
  std::vector<std::vector<double>> values;
  bool resamplable = true;
  for (const auto& p : c.points) {
    if ((p.lr < lo && !same_rate(p.lr, lo)) || (p.lr > hi && !same_rate(p.lr, hi))) continue;
    rates.push_back(p.lr);
    means.push_back(p.mean);
    caps.push_back(p.loss0_max);
    values.push_back(p.values);
    resamplable = resamplable && p.values.size() >= 2;
  }
  c.in_range = static_cast<int>(rates.size());
  if (!spans || rates.size() < 2) return;
  c.sensitivity = sensitivity_over(rates, means);
  if (!resamplable) return;
  std::tie(c.ci_lo, c.ci_hi) =
      bootstrap_sensitivity(rates, values, kLrBootstrapResamples, kLrBootstrapSeed, caps);
}

// Where each run's l0 came from (load_lr_sensitivity), for the notes.
struct InitialLosses {
  std::map<int64_t, double> l0;
  int at_init = 0, first_logged = 0;
  std::set<int64_t> first_steps;  // the updates the first logged points were at
};

// "valid_loss" -> ("valid_loss", "train_loss"): the metric measured before the first update,
// and the training curve of the same quantity. A metric of neither form has only the first.
std::pair<std::string, std::string> initial_loss_names(const std::string& metric) {
  for (const std::string prefix : {"valid_", "train_"})
    if (metric.rfind(prefix, 0) == 0) {
      const std::string rest = metric.substr(prefix.size());
      return {"valid_" + rest, "train_" + rest};
    }
  return {metric, ""};
}

InitialLosses initial_losses(const db::Store& store, const std::vector<TableRun>& runs,
                             const std::string& metric) {
  const auto [at_init, trained] = initial_loss_names(metric);
  InitialLosses out;
  for (const auto& r : runs) {
    if (r.status != db::status::kFinished && r.status != db::status::kDiverged) continue;
    const auto init = store.metric_points_after(r.id, at_init, -1);
    if (!init.empty() && init.front().step == 0 && std::isfinite(init.front().value)) {
      out.l0[r.id] = init.front().value;
      ++out.at_init;
      continue;
    }
    if (trained.empty()) continue;
    for (const auto& p : store.metric_points_after(r.id, trained, -1))
      if (std::isfinite(p.value)) {
        out.l0[r.id] = p.value;
        ++out.first_logged;
        out.first_steps.insert(p.step);
        break;
      }
  }
  return out;
}

std::string initial_loss_note(const InitialLosses& found, const std::string& metric) {
  const auto [at_init, trained] = initial_loss_names(metric);
  std::string note = "l0 = each run's own loss at initialization: ";
  if (found.at_init > 0)
    note += at_init + " at update 0, before the first update (" + std::to_string(found.at_init) +
            " runs)";
  if (found.first_logged > 0) {
    std::string steps;
    for (int64_t s : found.first_steps) steps += (steps.empty() ? "" : ", ") + std::to_string(s);
    note += std::string(found.at_init > 0 ? "; " : "") + std::to_string(found.first_logged) +
            " runs recorded before the trainer logged " + at_init +
            " at update 0 take their first logged " + trained + " (update " + steps +
            "), the mean over the first log window: below the loss at initialization by what "
            "those updates learnt";
  }
  if (found.at_init == 0 && found.first_logged == 0) note += "none known";
  return note;
}

}  // namespace

double sensitivity_over(const std::vector<double>& rates, const std::vector<double>& losses) {
  if (rates.size() != losses.size())
    throw std::invalid_argument("sensitivity_over: rates and losses differ in length");
  if (rates.size() < 2) return std::numeric_limits<double>::quiet_NaN();
  return weighted_excess(log_cells(log_rates(rates)), losses);
}

std::pair<double, double> bootstrap_sensitivity(const std::vector<double>& rates,
                                                const std::vector<std::vector<double>>& values,
                                                int resamples, unsigned long long seed,
                                                const std::vector<double>& caps) {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  if (rates.size() < 2 || rates.size() != values.size() || resamples < 1) return {nan, nan};
  if (!caps.empty() && caps.size() != rates.size()) return {nan, nan};
  for (const auto& v : values)
    if (v.empty()) return {nan, nan};
  const std::vector<double> w = log_cells(log_rates(rates));
  std::vector<double> sample_means;
  double df = 0;  // the rates' seeds less one each, pooled
  for (const auto& v : values) {
    sample_means.push_back(std::accumulate(v.begin(), v.end(), 0.0) /
                           static_cast<double>(v.size()));
    df += static_cast<double>(v.size() - 1);
  }
  std::mt19937_64 draw(seed);
  std::vector<double> draws, means(rates.size());
  draws.reserve(static_cast<size_t>(resamples));
  for (int b = 0; b < resamples; ++b) {
    for (size_t i = 0; i < values.size(); ++i) {
      means[i] = rescaled_resampled_mean(values[i], sample_means[i], draw);
      if (!caps.empty()) means[i] = std::min(means[i], caps[i]);
    }
    draws.push_back(weighted_excess(w, means));
  }
  return percentiles(std::move(draws), expanded_percentile_tail(df));
}

std::pair<double, double> parse_lr_range(const std::string& text) {
  const auto colon = text.find(':');
  auto refuse = [&](const std::string& why) -> std::pair<double, double> {
    throw InputError("fathom export lr-sensitivity", 0, "--range", "'" + text + "': " + why);
  };
  if (colon == std::string::npos) return refuse("expected LO:HI, e.g. 2.5e-4:8e-3");
  double bounds[2];
  const std::string parts[2] = {trim(text.substr(0, colon)), trim(text.substr(colon + 1))};
  for (int i = 0; i < 2; ++i) {
    char* end = nullptr;
    bounds[i] = std::strtod(parts[i].c_str(), &end);
    if (parts[i].empty() || *end != '\0' || !std::isfinite(bounds[i]) || !(bounds[i] > 0))
      return refuse("'" + parts[i] + "' is not a positive learning rate");
  }
  if (!(bounds[0] < bounds[1])) return refuse("LO must be below HI");
  return {bounds[0], bounds[1]};
}

namespace {

// The runs a sensitivity leaves out: neither finished nor diverged (by status: queued,
// running, failed, ...), or without a known l0.
struct LeftOut {
  std::map<std::string, int> unfinished;
  int without_loss0 = 0;
};

// A curve's point at one rate from the runs there: each run's loss capped at its l0, a
// diverged run as l0. No values when none of the runs counts.
LrPoint point_at_rate(double lr, const std::vector<const TableRun*>& members,
                      const std::function<std::optional<double>(int64_t)>& loss0,
                      LeftOut& left_out) {
  LrPoint p;
  p.lr = lr;
  double loss0_sum = 0;
  for (const TableRun* r : members) {
    const bool diverged = r->status == db::status::kDiverged;
    // +inf: its last point was not finite (use_last_of_run): l0, as diverged.
    const bool finished =
        r->status == db::status::kFinished && r->metric && !std::isnan(*r->metric);
    if (!diverged && !finished) {
      ++left_out.unfinished[r->status];
      continue;
    }
    const std::optional<double> l0 = loss0(r->id);
    if (!l0) {
      ++left_out.without_loss0;
      continue;
    }
    loss0_sum += *l0;
    p.loss0_max = p.values.empty() ? *l0 : std::max(p.loss0_max, *l0);
    p.values.push_back(diverged ? *l0 : std::min(*r->metric, *l0));
    p.diverged += diverged ? 1 : 0;
  }
  if (p.values.empty()) return p;
  const SampleSummary s = summarize(p.values);
  p.mean = s.mean;
  p.seeds = s.n;
  p.loss0 = loss0_sum / s.n;
  p.lo = *std::min_element(p.values.begin(), p.values.end());
  p.hi = *std::max_element(p.values.begin(), p.values.end());
  return p;
}

// What the result's numbers are, over which rates, and what was left out.
void add_sensitivity_notes(LrSensitivity& out, const std::string& metric,
                           std::optional<std::pair<double, double>> range,
                           std::optional<std::pair<double, double>> over, const LeftOut& left_out) {
  out.notes.push_back(
      metric +
      " at each learning rate: mean over seeds, each capped at its run's l0 (a diverged run "
      "counts as l0); sensitivity = the mean over the range's rates, each weighted by its "
      "share of the range in log rate, of (loss - l*), l* the curve's best in the range "
      "(Wortsman et al. 2023); 95 % interval: percentile bootstrap, each rate's seeds "
      "resampled, " +
      std::to_string(kLrBootstrapResamples) +
      " draws, each rate's drawn mean rescaled by sqrt(n/(n-1)) and the ends expanded for the "
      "seeds' degrees of freedom (methods.md s7)");
  if (over)
    out.notes.push_back("every sensitivity over the same rates, " + lr_number(over->first) +
                        " to " + lr_number(over->second) +
                        (range ? " (--range); a curve that does not reach both ends has none"
                               : " (the curves' common range)"));
  else
    out.notes.push_back(
        "the curves share no range of two or more rates: no sensitivity; give --range LO:HI");
  if (!left_out.unfinished.empty()) {
    int total = 0;
    std::string counts;
    for (const auto& [status, n] : left_out.unfinished) {
      total += n;
      counts += (counts.empty() ? "" : ", ") + std::to_string(n) + " " + status;
    }
    out.notes.push_back(std::to_string(total) + " runs neither finished nor diverged, left out (" +
                        counts + ")");
  }
  if (left_out.without_loss0 > 0)
    out.notes.push_back(std::to_string(left_out.without_loss0) +
                        " runs without a known l0: left out");
}

}  // namespace

LrSensitivity lr_sensitivity(const std::vector<TableRun>& runs, const std::string& metric,
                             const std::function<std::optional<double>(int64_t)>& loss0,
                             const std::string& label,
                             std::optional<std::pair<double, double>> range) {
  if (db::metric::higher_is_better(metric).value_or(false))
    throw InputError("fathom export lr-sensitivity", 0, "--metric",
                     metric +
                         " is higher-is-better; learning-rate sensitivity is defined on a "
                         "loss (valid_loss, valid_nll, valid_ppl, train_loss)");
  std::map<std::string, double> rates;  // the rate axis's text -> value
  for (const auto& r : runs)
    if (auto it = r.axes.find(kLrKey); it != r.axes.end())
      rates[it->second] = std::strtod(it->second.c_str(), nullptr);
  if (rates.size() < 2)
    throw InputError(
        "fathom export lr-sensitivity", 0, "--sweep",
        std::string("the sweep has no ") + kLrKey +
            " axis of two or more values (e.g. train.lr: {logspace: [1e-4, 1e-2, 6]})");

  LrSensitivity out;
  out.metric = metric;
  std::vector<std::string> order;  // curves in first-seen order (the sweep file's)
  std::map<std::string, std::map<double, std::vector<const TableRun*>>> by_curve;
  std::map<std::string, std::map<std::string, std::string>> settings;
  const std::set<std::string> distinguishing = curve_axes(runs);
  const std::vector<std::string> named = label_axes(runs, label);
  for (const auto& r : runs) {
    if (!r.axes.count(kLrKey)) continue;
    const std::string name = curve_label(r, distinguishing, named);
    if (!by_curve.count(name)) {
      order.push_back(name);
      for (const auto& [key, value] : r.axes)
        if (distinguishing.count(key) || std::count(named.begin(), named.end(), key))
          settings[name][key] = value;
    }
    by_curve[name][rates.at(r.axes.at(kLrKey))].push_back(&r);
  }
  LeftOut left_out;
  for (const auto& name : order) {
    LrCurve curve;
    curve.label = name;
    curve.setting = settings[name];
    for (const auto& [lr, members] : by_curve.at(name)) {
      LrPoint p = point_at_rate(lr, members, loss0, left_out);
      if (p.values.empty()) continue;
      curve.points.push_back(std::move(p));
    }
    if (curve.points.empty()) continue;
    const auto best =
        std::min_element(curve.points.begin(), curve.points.end(),
                         [](const LrPoint& a, const LrPoint& b) { return a.mean < b.mean; });
    curve.best_lr = best->lr;
    curve.best_loss = best->mean;
    out.curves.push_back(std::move(curve));
  }

  const auto over = range ? range : common_range(out.curves);
  if (over) {
    out.range_lo = over->first;
    out.range_hi = over->second;
  }
  for (auto& c : out.curves) judge_over(c, over ? over->first : 0, over ? over->second : 0);

  add_sensitivity_notes(out, metric, range, over, left_out);
  const auto open = std::count_if(out.curves.begin(), out.curves.end(), best_at_an_end);
  if (open > 0)
    out.notes.push_back(std::to_string(open) + " of " + std::to_string(out.curves.size()) +
                        " curves have their lowest mean at an end of their rates (\"(an end)\"): "
                        "their optimum may lie beyond; `fathom sweep extend SWEEP.yaml` writes "
                        "the next rate for them");
  return out;
}

LrSensitivity load_lr_sensitivity(const db::Store& store, const std::string& sweep,
                                  const std::string& metric, RunReading value,
                                  const std::string& where, const std::string& label,
                                  const std::string& range) {
  return lr_sensitivity_of(store, select_sweep_runs(store, sweep, where), metric, value, label,
                           range);
}

namespace {

// Each run's value as `value` says, and the notes of the runs a budget left out. Those keep
// their place on the grid (a rate all of whose runs fell short is still one of the sweep's)
// under a status of their own, which the count of runs left out names.
std::vector<std::string> read_lr_values(std::vector<TableRun>& runs, const db::Store& store,
                                        const std::string& metric, RunReading& value) {
  auto notes = read_run_values(runs, store, metric, value, "fathom export lr-sensitivity");
  if (value.at)
    for (auto& r : runs)
      if (!r.metric && r.status != db::status::kDiverged) r.status = "not at the budget";
  return notes;
}

std::string value_note(const std::string& metric, const RunReading& value) {
  if (value.at)
    return "each run's last logged " + metric + " at " + budget_text(*value.at) +
           ": every rate compared at an equal budget, not at its end";
  if (value.value == RunValue::Last)
    return "each run's last logged " + metric +
           ", the end of training (a run's final metrics are its best checkpoint's)";
  if (value.value == RunValue::Final)
    return "each run's final " + metric +
           ", its best checkpoint's: what followed that checkpoint is not seen";
  return "each run's best " + metric + " over training";
}

}  // namespace

LrSensitivity lr_sensitivity_of(const db::Store& store, const SweepRuns& selected,
                                const std::string& metric, RunReading value,
                                const std::string& label, const std::string& range) {
  std::optional<std::pair<double, double>> bounds;
  if (!range.empty()) bounds = parse_lr_range(range);
  auto runs = load_table_runs(store, selected, metric, {});
  const std::vector<std::string> budget_notes = read_lr_values(runs, store, metric, value);
  const InitialLosses found = initial_losses(store, runs, metric);
  LrSensitivity s = lr_sensitivity(
      runs, metric,
      [&](int64_t id) -> std::optional<double> {
        if (auto it = found.l0.find(id); it != found.l0.end()) return it->second;
        return std::nullopt;
      },
      label, bounds);
  s.notes.insert(s.notes.begin() + 1, initial_loss_note(found, metric));
  s.notes.push_back(value_note(metric, value));
  s.notes.insert(s.notes.end(), budget_notes.begin(), budget_notes.end());
  s.budget_notes = budget_notes;
  if (auto note = selected.note()) s.notes.push_back(*note);
  return s;
}

bool best_at_an_end(const LrCurve& c) {
  return c.points.size() >= 2 &&
         (c.best_lr == c.points.front().lr || c.best_lr == c.points.back().lr);
}

TextTable lr_sensitivity_table(const LrSensitivity& s) {
  TextTable t;
  t.header = {"curve",          "LR sensitivity", "95 % interval", "best lr", "best " + s.metric,
              "rates in range", "diverged at"};
  for (const auto& c : s.curves) {
    const bool spans =
        s.range_hi > 0 && !c.points.empty() &&
        (c.points.front().lr <= s.range_lo || same_rate(c.points.front().lr, s.range_lo)) &&
        (c.points.back().lr >= s.range_hi || same_rate(c.points.back().lr, s.range_hi));
    std::string diverged;
    for (const auto& p : c.points)
      if (p.diverged > 0)
        diverged += (diverged.empty() ? "" : ", ") + lr_number(p.lr) + " (" +
                    std::to_string(p.diverged) + "/" + std::to_string(p.seeds) + ")";
    // Why a curve has none: one rate; (--range) it stops short of an end of the range; or
    // fewer than two of its rates lie in the range.
    const std::string sensitivity = !std::isnan(c.sensitivity) ? lr_number(c.sensitivity)
                                    : c.points.size() < 2      ? "n/a (1 rate)"
                                    : s.range_hi > 0 && !spans ? "n/a (short of the range)"
                                                               : "n/a (< 2 rates in range)";
    const std::string interval = !std::isnan(c.ci_lo)
                                     ? "[" + lr_number(c.ci_lo) + ", " + lr_number(c.ci_hi) + "]"
                                 : std::isnan(c.sensitivity) ? "-"
                                                             : "n/a (1 seed)";
    t.rows.push_back({c.label, sensitivity, interval,
                      lr_number(c.best_lr) + (best_at_an_end(c) ? " (an end)" : ""),
                      lr_number(c.best_loss),
                      std::to_string(c.in_range) + " of " + std::to_string(c.points.size()),
                      diverged.empty() ? "-" : diverged});
  }
  return t;
}

}  // namespace fathom::experiments
