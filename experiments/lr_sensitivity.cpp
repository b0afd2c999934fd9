#include "experiments/lr_sensitivity.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>

#include "base/metrics/statistics.h"
#include "base/util/error.h"
#include "base/util/strings.h"
#include "db/metric_names.h"
#include "db/metric_presentation.h"
#include "db/run_status.h"

namespace fathom::experiments {
namespace {

std::string sensitivity_number(double v) {
  if (std::isnan(v)) return "n/a (1 rate)";  // the only NaN lr_sensitivity() makes
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

bool is_perplexity(const std::string& metric) {
  return metric.size() >= 4 && metric.compare(metric.size() - 4, 4, "_ppl") == 0;
}

// The axes that tell curves apart: not the rate, the seed, or an axis with one value over the
// runs (every curve would repeat it).
std::set<std::string> curve_axes(const std::vector<TableRun>& runs) {
  std::map<std::string, std::set<std::string>> values;
  for (const auto& r : runs)
    if (r.axes.count(kLrKey))
      for (const auto& [key, value] : r.axes) values[key].insert(value);
  std::set<std::string> keys;
  for (const auto& [key, seen] : values) {
    const bool everywhere = std::all_of(runs.begin(), runs.end(), [&](const TableRun& r) {
      return !r.axes.count(kLrKey) || r.axes.count(key) > 0;
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

}  // namespace

LrSensitivity lr_sensitivity(const std::vector<TableRun>& runs, const std::string& metric,
                             const std::function<std::optional<double>(int64_t)>& loss0,
                             const std::string& label) {
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
  const std::set<std::string> distinguishing = curve_axes(runs);
  const std::vector<std::string> named = label_axes(runs, label);
  for (const auto& r : runs) {
    if (!r.axes.count(kLrKey)) continue;
    const std::string name = curve_label(r, distinguishing, named);
    if (!by_curve.count(name)) order.push_back(name);
    by_curve[name][rates.at(r.axes.at(kLrKey))].push_back(&r);
  }
  int without_loss0 = 0;
  std::map<std::string, int> unfinished;  // by status: queued, running, failed, ...
  for (const auto& name : order) {
    LrCurve curve;
    curve.label = name;
    for (const auto& [lr, members] : by_curve.at(name)) {
      LrPoint p;
      p.lr = lr;
      std::vector<double> values;
      for (const TableRun* r : members) {
        const std::optional<double> l0 = loss0(r->id);
        if (!l0) {
          ++without_loss0;
          continue;
        }
        p.loss0 = std::max(p.loss0, *l0);
        if (r->status == db::status::kDiverged) {
          values.push_back(*l0);
          ++p.diverged;
        } else if (r->status == db::status::kFinished && r->metric && !std::isnan(*r->metric)) {
          // +inf: its last point was not finite (use_last_of_run): l0, as diverged.
          values.push_back(std::min(*r->metric, *l0));
        } else {
          ++unfinished[r->status];
        }
      }
      if (values.empty()) continue;
      const SampleSummary s = summarize(values);
      p.mean = s.mean;
      p.seeds = s.n;
      p.lo = *std::min_element(values.begin(), values.end());
      p.hi = *std::max_element(values.begin(), values.end());
      curve.points.push_back(p);
    }
    if (curve.points.empty()) continue;
    const auto best =
        std::min_element(curve.points.begin(), curve.points.end(),
                         [](const LrPoint& a, const LrPoint& b) { return a.mean < b.mean; });
    curve.best_lr = best->lr;
    curve.best_loss = best->mean;
    for (const auto& p : curve.points) curve.sensitivity += p.mean - curve.best_loss;
    curve.sensitivity = curve.points.size() < 2
                            ? std::numeric_limits<double>::quiet_NaN()
                            : curve.sensitivity / static_cast<double>(curve.points.size());
    out.curves.push_back(std::move(curve));
  }
  out.notes.push_back(metric + " at each learning rate: mean over seeds, each capped at l0 = " +
                      (is_perplexity(metric) ? "V" : "ln V") +
                      " (a uniform prediction over the V-word vocabulary; a diverged run counts "
                      "as l0); sensitivity = mean over the rates of (loss - the curve's best), "
                      "Wortsman et al. 2023");
  if (!unfinished.empty()) {
    int total = 0;
    std::string counts;
    for (const auto& [status, n] : unfinished) {
      total += n;
      counts += (counts.empty() ? "" : ", ") + std::to_string(n) + " " + status;
    }
    out.notes.push_back(std::to_string(total) + " runs neither finished nor diverged, left out (" +
                        counts + ")");
  }
  if (without_loss0 > 0)
    out.notes.push_back(std::to_string(without_loss0) + " runs without a known l0: left out");
  return out;
}

LrSensitivity load_lr_sensitivity(const db::Store& store, const std::string& sweep,
                                  const std::string& metric, RunValue value,
                                  const std::string& where, const std::string& label) {
  const SweepRuns selected = select_sweep_runs(store, sweep, where);
  auto runs = load_table_runs(store, selected, metric, {});
  TableOptions o;  // a loss: lower is better (lr_sensitivity refuses anything else)
  o.metric = metric;
  o.value = value;
  use_run_value(runs, store, o);
  std::map<int64_t, double> vocab;
  for (const auto& r : runs) {
    const auto tags = store.tags(r.id);
    if (auto it = tags.find("vocab.size"); it != tags.end())
      vocab[r.id] = std::strtod(it->second.c_str(), nullptr);
  }
  // Runs recorded before the tag: the largest value any run of the sweep reached.
  double largest = 0;
  for (const auto& r : runs)
    if (r.metric && std::isfinite(*r.metric)) largest = std::max(largest, *r.metric);
  const bool ppl = is_perplexity(metric);
  LrSensitivity s = lr_sensitivity(
      runs, metric,
      [&](int64_t id) -> std::optional<double> {
        if (auto it = vocab.find(id); it != vocab.end() && it->second > 1)
          return ppl ? it->second : std::log(it->second);
        if (largest > 0) return largest;
        return std::nullopt;
      },
      label);
  // Only the runs the curves use (finished or diverged) can lack it to any effect: a queued
  // run has no tag yet either.
  const bool some_used_lack_it = std::any_of(runs.begin(), runs.end(), [&](const TableRun& r) {
    return (r.status == db::status::kFinished || r.status == db::status::kDiverged) &&
           !vocab.count(r.id);
  });
  if (some_used_lack_it)
    s.notes.push_back(
        "runs without a vocab.size tag (recorded before it existed) take l0 = the sweep's "
        "largest " +
        metric + ", " + sensitivity_number(largest));
  if (value == RunValue::Last)
    s.notes.push_back("each run's last logged " + metric +
                      ", the end of training (a run's final metrics are its best checkpoint's)");
  if (value == RunValue::Final)
    s.notes.push_back("each run's final " + metric +
                      ", its best checkpoint's: what followed that checkpoint is not seen");
  if (value == RunValue::Best) s.notes.push_back("each run's best " + metric + " over training");
  if (auto note = selected.note()) s.notes.push_back(*note);
  return s;
}

TextTable lr_sensitivity_table(const LrSensitivity& s) {
  TextTable t;
  t.header = {"curve", "LR sensitivity", "best lr", "best " + s.metric, "rates", "diverged at"};
  for (const auto& c : s.curves) {
    std::string diverged;
    for (const auto& p : c.points)
      if (p.diverged > 0)
        diverged += (diverged.empty() ? "" : ", ") + sensitivity_number(p.lr) + " (" +
                    std::to_string(p.diverged) + "/" + std::to_string(p.seeds) + ")";
    t.rows.push_back({c.label, sensitivity_number(c.sensitivity), sensitivity_number(c.best_lr),
                      sensitivity_number(c.best_loss), std::to_string(c.points.size()),
                      diverged.empty() ? "-" : diverged});
  }
  return t;
}

}  // namespace fathom::experiments
