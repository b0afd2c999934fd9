#include "experiments/axis_extension.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <set>

#include "base/util/error.h"
#include "db/metric_names.h"
#include "db/metric_presentation.h"
#include "experiments/axis_optimum.h"
#include "experiments/lr_extension.h"
#include "experiments/sweep_runs.h"
#include "experiments/value_at_budget.h"

namespace fathom::experiments {
namespace {

const std::string kCommand = "fathom sweep extend";

// Six significant digits, or a whole number as one.
std::string number_text(double x, bool whole) {
  char text[32];
  if (whole)
    std::snprintf(text, sizeof text, "%.0f", x);
  else
    std::snprintf(text, sizeof text, "%.6g", x);
  return text;
}

bool is_whole(const std::string& text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
}

// The axis's index in the file and its key's place in it; InputError (--axis) otherwise.
std::pair<size_t, size_t> find_axis(const SweepSpec& spec, const std::string& key,
                                    const std::string& file) {
  for (size_t a = 0; a < spec.axes.size(); ++a) {
    if (spec.axes[a].kind == SweepAxis::Kind::Seeds) continue;
    const auto& keys = spec.axes[a].keys;
    if (const auto it = std::find(keys.begin(), keys.end(), key); it != keys.end())
      return {a, static_cast<size_t>(it - keys.begin())};
  }
  throw InputError(file, 0, "--axis", key + " is not a grid or zip key of this file");
}

// The file's steps of the axis in ascending order of `key`'s value (step indices).
std::vector<size_t> steps_by_value(const SweepAxis& axis, size_t k, const std::string& file,
                                   std::vector<double>& values) {
  values.clear();
  for (const auto& step : axis.steps) {
    const auto v = axis_number(step[k].text);
    if (!v)
      throw InputError(file, axis.line, axis.keys[k],
                       "has the value '" + step[k].text +
                           "', not a number > 0: only a numeric axis (a depth, a width) is "
                           "extended along");
    values.push_back(*v);
  }
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return values[a] < values[b]; });
  return order;
}

// The new step beyond one end of the axis, a text per key (`notes` says how a zip partner's
// value was made); none, with a note, where it cannot be.
std::optional<std::vector<std::string>> new_step(const SweepAxis& axis, size_t k, bool above,
                                                 const std::string& file,
                                                 std::vector<std::string>& notes) {
  std::vector<double> values;
  const std::vector<size_t> order = steps_by_value(axis, k, file, values);
  std::vector<double> sorted;
  for (size_t i : order) sorted.push_back(values[i]);
  bool whole = true;
  for (const auto& step : axis.steps) whole = whole && is_whole(step[k].text);
  const std::string& key = axis.keys[k];
  const auto x = step_beyond(sorted, above, whole);
  if (!x) {
    notes.push_back(key + ": nothing below " + number_text(sorted.front(), whole) +
                    " to extend to");
    return std::nullopt;
  }
  // The end step and the one beside it, for the zip partners' values.
  const size_t end = above ? order.back() : order.front();
  const size_t near = above ? order[order.size() - 2] : order[1];
  std::vector<std::string> texts(axis.keys.size());
  for (size_t p = 0; p < axis.keys.size(); ++p) {
    if (p == k) {
      texts[p] = number_text(*x, whole);
      continue;
    }
    bool same = true;
    for (const auto& step : axis.steps) same = same && step[p].text == step[k].text;
    if (same) {
      texts[p] = number_text(*x, whole);
      continue;
    }
    const auto a = axis_number(axis.steps[near][p].text), b = axis_number(axis.steps[end][p].text);
    if (!a || !b) {
      notes.push_back(axis.keys[p] + " (zipped with " + key + ") is not a number: its value at " +
                      key + " " + number_text(*x, whole) + " is yours to choose");
      return std::nullopt;
    }
    // The power law in the axis through the two steps at the end.
    const double slope = std::log(*b / *a) / std::log(values[end] / values[near]);
    const double v = *b * std::pow(*x / values[end], slope);
    const bool partner_whole = std::all_of(axis.steps.begin(), axis.steps.end(),
                                           [&](const auto& s) { return is_whole(s[p].text); });
    texts[p] = number_text(partner_whole ? std::max(1.0, std::round(v)) : v, partner_whole);
    notes.push_back(axis.keys[p] + " " + texts[p] + " at " + key + " " + texts[k] +
                    ": the power law in " + key + " through its last two steps (" +
                    axis.steps[near][p].text + ", " + axis.steps[end][p].text +
                    "); check it before training");
  }
  return texts;
}

std::string header(const std::string& sweep_file, const std::string& axis,
                   const std::string& metric, const RunReading& reading,
                   const std::vector<std::string>& extends) {
  std::string text = "# Written by `fathom sweep extend " + sweep_file + " --axis " + axis +
                     "`: one step beyond the grid's end\n# for each line whose best " + metric +
                     (reading.at ? " at " + budget_text(*reading.at) : std::string()) +
                     " was at that end, so that its best " + short_axis_key(axis) +
                     " gets bracketed.\n# Run it with --resume (it joins the sweep's queue). "
                     "Lines:\n";
  for (const auto& line : extends) text += "#   " + line + "\n";
  return text;
}

}  // namespace

std::optional<double> step_beyond(const std::vector<double>& steps, bool above, bool whole) {
  const double end = above ? steps.back() : steps.front();
  const double ratio = above ? steps.back() / steps[steps.size() - 2] : steps[1] / steps[0];
  double x = above ? end * ratio : end / ratio;
  if (whole) x = above ? std::max(std::round(x), end + 1) : std::min(std::round(x), end - 1);
  if (x <= 0 || (whole && x < 1)) return std::nullopt;
  return x;
}

AxisExtension plan_axis_extension(const db::Store& store, const std::string& sweep_file,
                                  const std::string& name, const std::string& axis,
                                  const std::string& metric, RunReading reading,
                                  const std::string& out_dir) {
  if (metric.rfind("test_", 0) == 0)
    throw InputError(kCommand, 0, "--metric",
                     metric +
                         " is a test metric: a depth is chosen on validation (valid_loss), "
                         "and the test metric is what is then reported");
  const SweepSpec spec = load_sweep_file(sweep_file);
  const auto [a, k] = find_axis(spec, axis, sweep_file);
  std::vector<double> values;
  steps_by_value(spec.axes[a], k, sweep_file, values);  // refuses a value that is no number
  AxisExtension x;
  x.sweep = name.empty() ? spec.name : name;
  x.axis = axis;
  const auto runs = store.list_runs(x.sweep);
  refuse_unended(runs, x.sweep, store.path());

  // A line per setting of the other axes (their first keys), the axis along its columns.
  std::vector<std::string> others;
  for (size_t b = 0; b < spec.axes.size(); ++b)
    if (b != a && spec.axes[b].kind != SweepAxis::Kind::Seeds)
      others.push_back(spec.axes[b].keys[0]);
  TableOptions o;
  o.metric = metric;
  for (const auto& key : others) o.rows += (o.rows.empty() ? "" : "+") + key;
  o.cols = o.rows.empty() ? "" : axis;
  if (o.rows.empty()) o.rows = axis;  // one line: along_numeric_axis reads its rows
  o.spread = Spread::Ci95;
  o.value = reading.value;
  o.at = reading.at;
  const SweepRuns selected = select_sweep_runs(store, x.sweep, "");
  std::vector<TableRun> table_runs = load_table_runs(store, selected, metric, {o.rows, o.cols});
  const auto read_notes = read_run_values(table_runs, store, o, kCommand);
  reading.at = o.at;  // a least budget found: its number for the file's header
  const ComparisonTable t = along_numeric_axis(build_comparison_table(table_runs, o));
  x.notes.insert(x.notes.end(), read_notes.begin(), read_notes.end());

  std::vector<AxisEdge> edges;
  std::optional<std::optional<std::vector<std::string>>> next[2];  // below, above: made once
  const bool higher = db::metric::higher_is_better(metric).value_or(false);
  const auto optima = row_optima(t, short_axis_key(axis), higher);
  x.lines = optima.size();
  for (size_t r = 0; r < optima.size(); ++r) {
    const AxisOptimum& best = optima[r];
    if (best.points < 3 || best.best.bracketed) {
      (best.points < 3 ? x.notes : x.closed).push_back(best.text());
      continue;
    }
    x.open.push_back(best.text());
    const bool above = best.best.grid_x >= best.grid_hi;
    if (!next[above]) next[above] = new_step(spec.axes[a], k, above, sweep_file, x.notes);
    if (!*next[above]) continue;
    AxisEdge e;
    e.label = best.line;
    // "post / xavier": the other axes' values in their order.
    if (!others.empty()) {
      std::string rest = t.row_labels[r];
      for (size_t i = 0; i < others.size(); ++i) {
        const size_t cut = i + 1 < others.size() ? rest.find(" / ") : std::string::npos;
        e.setting[others[i]] = rest.substr(0, cut);
        rest = cut == std::string::npos ? "" : rest.substr(cut + 3);
      }
    }
    e.next = **next[above];
    e.said = best.line + ": " + e.next[k] + (above ? " (above " : " (below ") +
             number_text(best.best.grid_x, false) + ")";
    edges.push_back(std::move(e));
  }
  x.file = extend_sweep_along(sweep_file, spec, a, edges, out_dir, x.sweep);
  x.notes.insert(x.notes.end(), x.file.notes.begin(), x.file.notes.end());
  if (auto note = stored_already(runs, x.file, short_axis_key(axis))) x.notes.push_back(*note);
  x.set = sweep_set_values(store, runs);
  if (!x.file.yaml.empty())
    x.text = header(sweep_file, axis, metric, reading, x.file.extends) + x.file.yaml;
  return x;
}

}  // namespace fathom::experiments
