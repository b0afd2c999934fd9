#include "experiments/axis_extension.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <set>

#include "base/util/error.h"
#include "db/metric_names.h"
#include "db/metric_presentation.h"
#include "db/run_status.h"
#include "experiments/axis_optimum.h"
#include "experiments/grid_optimum.h"
#include "experiments/lr_extension.h"
#include "experiments/sweep_runs.h"
#include "experiments/value_at_budget.h"

namespace fathom::experiments {
namespace {

const std::string kCommand = "fathom sweep extend";
const std::string kMaxUpdatesKey = "train.max_updates";

// Six significant digits (as a rate is written), or a whole number as one.
std::string number_text(double x, bool whole) {
  if (!whole) return rate_text(x);
  char text[32];
  std::snprintf(text, sizeof text, "%.0f", x);
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

// The axis's steps as the sweep's stored runs took them (their axis.* tags) with the file's:
// the grid a line is judged on, which an extension run earlier has already moved.
SweepAxis stored_steps(const SweepAxis& file_axis, const std::vector<TableRun>& runs) {
  std::set<std::vector<std::string>> seen;
  SweepAxis out = file_axis;
  for (const auto& step : file_axis.steps) {
    std::vector<std::string> texts;
    for (const auto& v : step) texts.push_back(v.text);
    seen.insert(texts);
  }
  for (const auto& run : runs) {
    std::vector<std::string> texts;
    for (const auto& key : file_axis.keys)
      if (const auto it = run.axes.find(key); it != run.axes.end()) texts.push_back(it->second);
    if (texts.size() != file_axis.keys.size() || !seen.insert(texts).second) continue;
    std::vector<SweepValue> step;
    for (const auto& t : texts) step.push_back(SweepValue{t, t, t, 0});
    out.steps.push_back(std::move(step));
  }
  return out;
}

// An isoFLOP sweep (every finished run trained within 5 % of the same FLOPs): that compute, and
// the FLOPs an update costs as a line in the axis -- a depth's cost per token is L times a
// layer's plus the rest (core/train/training_flops.h), so linear in L -- fitted to the
// finished runs' final train_flops / updates.
struct IsoFlops {
  double compute = 0, intercept = 0, slope = 0;
};

std::optional<IsoFlops> iso_flops(const std::vector<db::RunRecord>& runs,
                                  const std::vector<TableRun>& table_runs, const std::string& key) {
  std::vector<double> xs, per_update;
  double lo = 0, hi = 0, sum = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto flops = runs[i].final_metrics.find(db::metric::kTrainFlops);
    const auto tag = table_runs[i].axes.find(key);
    if (runs[i].status != db::status::kFinished || runs[i].updates <= 0 ||
        flops == runs[i].final_metrics.end() || !(flops->second > 0) ||
        tag == table_runs[i].axes.end())
      continue;
    const auto x = axis_number(tag->second);
    if (!x) continue;
    xs.push_back(*x);
    per_update.push_back(flops->second / static_cast<double>(runs[i].updates));
    lo = xs.size() == 1 ? flops->second : std::min(lo, flops->second);
    hi = std::max(hi, flops->second);
    sum += flops->second;
  }
  if (xs.size() < 2 ||
      *std::min_element(xs.begin(), xs.end()) == *std::max_element(xs.begin(), xs.end()) ||
      hi > 1.05 * lo)
    return std::nullopt;
  IsoFlops iso;
  const double n = static_cast<double>(xs.size());
  iso.compute = sum / n;
  iso.slope = ols_slope(xs, per_update);
  iso.intercept = (std::accumulate(per_update.begin(), per_update.end(), 0.0) -
                   iso.slope * std::accumulate(xs.begin(), xs.end(), 0.0)) /
                  n;
  return iso;
}

// A zip partner's value at the new step x of the axis (key k): an isoFLOP sweep's max_updates
// its compute over the update's cost at x; any other numeric one the power law in the axis
// through the steps `near` and `end`; none (with a note) where it is no number.
std::optional<std::string> partner_value(const SweepAxis& axis, size_t p, size_t k, double x,
                                         const std::string& x_text, size_t near, size_t end,
                                         const std::vector<double>& values,
                                         const std::optional<IsoFlops>& iso,
                                         std::vector<std::string>& notes) {
  const std::string& key = axis.keys[k];
  const auto a = axis_number(axis.steps[near][p].text), b = axis_number(axis.steps[end][p].text);
  if (!a || !b) {
    notes.push_back(axis.keys[p] + " (zipped with " + key + ") is not a number: its value at " +
                    key + " " + x_text + " is yours to choose");
    return std::nullopt;
  }
  const bool whole = std::all_of(axis.steps.begin(), axis.steps.end(),
                                 [&](const auto& s) { return is_whole(s[p].text); });
  const auto text = [&](double v) {
    return number_text(whole ? std::max(1.0, std::round(v)) : v, whole);
  };
  if (iso && axis.keys[p] == kMaxUpdatesKey && iso->intercept + iso->slope * x > 0) {
    const double per_update = iso->intercept + iso->slope * x;
    const std::string v = text(iso->compute / per_update);
    notes.push_back(axis.keys[p] + " " + v + " at " + key + " " + x_text + ": the sweep's " +
                    number_text(iso->compute, false) + " FLOPs over the " +
                    number_text(per_update, false) + " an update costs there (a line in " + key +
                    " through the runs' FLOPs per update)");
    return v;
  }
  const double slope = std::log(*b / *a) / std::log(values[end] / values[near]);
  const std::string v = text(*b * std::pow(x / values[end], slope));
  notes.push_back(axis.keys[p] + " " + v + " at " + key + " " + x_text + ": the power law in " +
                  key + " through its last two steps (" + axis.steps[near][p].text + ", " +
                  axis.steps[end][p].text + "); check it before training");
  return v;
}

// The new step beyond one end of the axis, a text per key (`notes` says how a zip partner's
// value was made); none, with a note, where it cannot be.
std::optional<std::vector<std::string>> new_step(const SweepAxis& axis, size_t k, bool above,
                                                 const std::string& file,
                                                 const std::optional<IsoFlops>& iso,
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
    const auto v = partner_value(axis, p, k, *x, texts[k], near, end, values, iso, notes);
    if (!v) return std::nullopt;
    texts[p] = *v;
  }
  return texts;
}

std::string header(const AxisExtensionRequest& r, const std::optional<Budget>& at,
                   const std::vector<std::string>& extends) {
  const std::string& axis = r.axis;
  std::string text = "# Written by `fathom sweep extend " + r.sweep_file + " --axis " + axis +
                     (r.reading.at ? " --at " + budget_argument(*r.reading.at) : "") +
                     "`: one step beyond the grid's end\n# for each line whose best " + r.metric +
                     (at ? " at " + budget_text(*at) : std::string()) +
                     " was at that end, so that its best " + short_axis_key(axis) +
                     " gets bracketed.\n# Run it with --resume (it joins the sweep's queue). "
                     "Lines:\n";
  for (const auto& line : extends) text += "#   " + line + "\n";
  return text;
}

// The lines' keys (each line a setting of them) and the variant axes (neither the lines' nor
// the extended one nor the seeds): --lines, or every other axis a line.
struct LineAxes {
  std::vector<std::string> line_keys;
  std::vector<size_t> variants;
};

LineAxes line_axes(const SweepSpec& spec, size_t extended, const AxisExtensionRequest& r) {
  LineAxes out;
  const auto others = [&](size_t b) {
    return b != extended && spec.axes[b].kind != SweepAxis::Kind::Seeds;
  };
  if (r.one_line) {
    for (size_t b = 0; b < spec.axes.size(); ++b)
      if (others(b)) out.variants.push_back(b);
    return out;
  }
  if (r.lines.empty()) {
    for (size_t b = 0; b < spec.axes.size(); ++b)
      if (others(b)) out.line_keys.push_back(spec.axes[b].keys[0]);
    return out;
  }
  std::set<size_t> named;
  size_t from = 0;
  while (from <= r.lines.size()) {
    const size_t plus = std::min(r.lines.find('+', from), r.lines.size());
    const std::string key = r.lines.substr(from, plus - from);
    from = plus + 1;
    size_t b = 0;
    while (b < spec.axes.size() &&
           !(others(b) && std::count(spec.axes[b].keys.begin(), spec.axes[b].keys.end(), key)))
      ++b;
    if (b == spec.axes.size())
      throw InputError(r.sweep_file, 0, "--lines",
                       "'" + key + "' is not a grid or zip key of this file besides " + r.axis);
    out.line_keys.push_back(key);
    named.insert(b);
  }
  for (size_t b = 0; b < spec.axes.size(); ++b)
    if (others(b) && !named.count(b)) out.variants.push_back(b);
  return out;
}

// Every setting of the variant axes (their first keys): one empty setting where there are none.
std::vector<std::map<std::string, std::string>> variant_settings(
    const SweepSpec& spec, const std::vector<size_t>& variants) {
  std::vector<std::map<std::string, std::string>> out{{}};
  for (size_t v : variants) {
    std::vector<std::map<std::string, std::string>> more;
    for (const auto& setting : out)
      for (const auto& step : spec.axes[v].steps) {
        auto s = setting;
        s[spec.axes[v].keys[0]] = step[0].text;
        more.push_back(std::move(s));
      }
    out = std::move(more);
  }
  return out;
}

// "post / xavier" as the lines' keys' values, in their order.
std::map<std::string, std::string> line_setting(const std::string& label,
                                                const std::vector<std::string>& keys) {
  std::map<std::string, std::string> setting;
  std::string rest = label;
  for (size_t i = 0; i < keys.size(); ++i) {
    const size_t cut = i + 1 < keys.size() ? rest.find(" / ") : std::string::npos;
    setting[keys[i]] = rest.substr(0, cut);
    rest = cut == std::string::npos ? "" : rest.substr(cut + 3);
  }
  return setting;
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

namespace {

// The table of the metric against the axis: a row per line.
TableOptions line_table_options(const AxisExtensionRequest& r, const LineAxes& lines) {
  TableOptions o;
  o.metric = r.metric;
  for (const auto& key : lines.line_keys) o.rows += (o.rows.empty() ? "" : "+") + key;
  o.cols = o.rows.empty() ? "" : r.axis;
  if (o.rows.empty()) o.rows = r.axis;  // one line: along_numeric_axis reads its rows
  o.spread = Spread::Ci95;
  o.value = r.reading.value;
  o.at = r.reading.at;
  o.agg = r.agg;
  o.select_by = r.select_by;
  return o;
}

// That table of `runs` (each run's value read as asked); `at` comes back found where it was a
// least budget.
ComparisonTable line_table(const db::Store& store, std::vector<TableRun> runs, TableOptions o,
                           std::optional<Budget>& at, std::vector<std::string>& notes) {
  const auto read_notes = read_run_values(runs, store, o, kCommand);
  notes.insert(notes.end(), read_notes.begin(), read_notes.end());
  at = o.at;
  return along_numeric_axis(build_comparison_table(runs, o));
}

}  // namespace

AxisExtension plan_axis_extension(const db::Store& store, const AxisExtensionRequest& r) {
  if (r.metric.rfind("test_", 0) == 0)
    throw InputError(kCommand, 0, "--metric",
                     r.metric +
                         " is a test metric: a depth is chosen on validation (valid_loss), "
                         "and the test metric is what is then reported");
  const SweepSpec spec = load_sweep_file(r.sweep_file);
  const auto [a, k] = find_axis(spec, r.axis, r.sweep_file);
  std::vector<double> values;
  steps_by_value(spec.axes[a], k, r.sweep_file, values);  // refuses a value that is no number
  const LineAxes lines = line_axes(spec, a, r);
  AxisExtension x;
  x.sweep = r.name.empty() ? spec.name : r.name;
  x.axis = r.axis;
  const auto runs = store.list_runs(x.sweep);
  refuse_unended(runs, x.sweep, store.path());
  // The runs (under --where) and their tags, read once: the table's, the grid's steps and an
  // isoFLOP sweep's cost per update.
  const SweepRuns selected = select_sweep_runs(store, x.sweep, r.where);
  const TableOptions o = line_table_options(r, lines);
  std::vector<TableRun> loaded = load_table_runs(store, selected, r.metric, {o.rows, o.cols});
  const SweepAxis grid = stored_steps(spec.axes[a], loaded);
  const std::optional<IsoFlops> iso = iso_flops(selected.runs, loaded, r.axis);
  std::optional<Budget> at;
  const ComparisonTable t = line_table(store, std::move(loaded), o, at, x.notes);
  std::vector<AxisEdge> edges;
  std::optional<std::optional<std::vector<std::string>>> next[2];  // below, above: made once
  const auto variants = variant_settings(spec, lines.variants);
  const auto optima =
      row_optima(t, short_axis_key(r.axis), db::metric::higher_is_better(r.metric).value_or(false));
  x.lines = optima.size();
  for (size_t row = 0; row < optima.size(); ++row) {
    const AxisOptimum& best = optima[row];
    if (best.points < 3 || best.best.bracketed) {
      (best.points < 3 ? x.notes : x.closed).push_back(best.text());
      continue;
    }
    x.open.push_back(best.text());
    const bool above = best.best.grid_x >= best.grid_hi;
    if (!next[above]) next[above] = new_step(grid, k, above, r.sweep_file, iso, x.notes);
    if (!*next[above]) continue;
    for (const auto& variant : variants) {  // the new step at each of the line's variants
      AxisEdge e{best.line, line_setting(t.row_labels[row], lines.line_keys), **next[above], ""};
      std::string label = best.line;
      for (const auto& [key, value] : variant) {
        e.setting[key] = value;
        label += ", " + short_axis_key(key) + "=" + value;
      }
      e.label = label;
      e.said = label + ": " + e.next[k] + (above ? " (above " : " (below ") +
               number_text(best.best.grid_x, false) + ")";
      edges.push_back(std::move(e));
    }
  }
  x.file = extend_sweep_along(r.sweep_file, spec, a, edges, r.out_dir, x.sweep);
  x.notes.insert(x.notes.end(), x.file.notes.begin(), x.file.notes.end());
  if (auto note = stored_already(runs, x.file, short_axis_key(r.axis))) x.notes.push_back(*note);
  x.set = sweep_set_values(store, runs);
  if (!x.file.yaml.empty()) x.text = header(r, at, x.file.extends) + x.file.yaml;
  return x;
}

}  // namespace fathom::experiments
