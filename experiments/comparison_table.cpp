#include "experiments/comparison_table.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "base/metrics/statistics.h"
#include "base/util/error.h"
#include "base/util/strings.h"
#include "db/early_stop_tag.h"
#include "db/metric_names.h"
#include "db/metric_presentation.h"
#include "db/run_json.h"
#include "db/run_status.h"
#include "experiments/final_model_note.h"
#include "experiments/value_at_budget.h"

namespace fathom::experiments {
namespace {

bool higher_is_better(const std::string& metric) {
  std::string m = metric;
  std::transform(m.begin(), m.end(), m.begin(), ::tolower);
  return db::metric::higher_is_better(m).value_or(false);
}

bool higher_is_better(const TableOptions& o) {
  if (o.direction != MetricDirection::Auto) return o.direction == MetricDirection::HigherIsBetter;
  return higher_is_better(o.metric);
}

// A metric of the test split: what a paper reports, never what it chooses by.
bool is_test_metric(const std::string& metric) { return metric.rfind("test_", 0) == 0; }

// The reason a cell without a value shows, most telling first.
std::string empty_cell_status(const std::vector<const TableRun*>& runs, const TableCell& cell) {
  if (runs.empty()) return "";
  if (cell.diverged > 0)
    return cell.first_diverged_step ? "diverged@" + std::to_string(*cell.first_diverged_step)
                                    : db::status::kDiverged;
  namespace st = db::status;
  for (const std::string& status :
       {st::kFailed, st::kCrashed, st::kCancelled, st::kRunning, st::kQueued})
    for (const auto* r : runs)
      if (r->status == status) return status;
  return "n/a";  // finished without this metric
}

std::vector<std::string> first_seen(const std::vector<TableRun>& runs, const std::string& key) {
  std::vector<std::string> labels;
  for (const auto& r : runs) {
    const std::string& v = r.axes.at(key);
    if (std::find(labels.begin(), labels.end(), v) == labels.end()) labels.push_back(v);
  }
  return labels;
}

// "train.lr" -> "lr": a cell names its variant by the key's last part.
std::string short_key(const std::string& key) {
  const auto dot = key.rfind('.');
  return dot == std::string::npos ? key : key.substr(dot + 1);
}

TableCell make_cell(const std::vector<const TableRun*>& runs, const TableOptions& options,
                    const std::vector<std::string>& variant_keys, bool up) {
  TableCell cell;
  cell.runs = static_cast<int>(runs.size());
  // Variants: runs of the cell that differ in an axis other than rows, cols and the seed. Each
  // keeps its reported values and, to be chosen on, its selection metric's values.
  std::map<std::vector<std::string>, std::vector<double>> variants, selections;
  std::map<std::vector<std::string>, std::vector<int64_t>> variant_runs;  // any status
  std::map<std::vector<std::string>, std::vector<int64_t>> variant_value_runs;
  std::vector<double> pooled;
  std::vector<int64_t> pooled_runs;
  for (const auto* r : runs) {
    cell.run_ids.push_back(r->id);
    std::vector<std::string> variant;
    for (const auto& k : variant_keys) variant.push_back(r->axes.at(k));
    variant_runs[variant].push_back(r->id);
    if (r->status == db::status::kDiverged) {
      ++cell.diverged;
      if (r->diverged_step &&
          (!cell.first_diverged_step || *r->diverged_step < *cell.first_diverged_step))
        cell.first_diverged_step = r->diverged_step;
      continue;
    }
    if (r->status != db::status::kFinished || !r->metric || !std::isfinite(*r->metric)) continue;
    variants[variant].push_back(*r->metric);
    variant_value_runs[variant].push_back(r->id);
    pooled.push_back(*r->metric);
    pooled_runs.push_back(r->id);
    if (auto it = r->final_metrics.find(options.select_by); it != r->final_metrics.end())
      selections[variant].push_back(it->second);
  }
  if (options.agg == CellAgg::Mean || variant_keys.empty()) {
    cell.values = pooled;
    cell.value_runs = pooled_runs;
  } else {
    // Choosing on the reported metric itself follows the table's direction (--direction).
    const bool select_up =
        options.select_by == options.metric ? up : higher_is_better(options.select_by);
    std::optional<double> chosen_by;
    for (const auto& [variant, values] : variants) {
      const SampleSummary by = summarize(selections[variant]);
      if (by.n == 0) continue;
      if (chosen_by && (select_up ? by.mean <= *chosen_by : by.mean >= *chosen_by)) continue;
      chosen_by = by.mean;
      cell.values = values;
      cell.value_runs = variant_value_runs.at(variant);
      cell.run_ids = variant_runs.at(variant);
      cell.variant.clear();
      for (size_t i = 0; i < variant.size(); ++i)
        cell.variant += (i ? ", " : "") + short_key(variant_keys[i]) + "=" + variant[i];
    }
  }
  const SampleSummary chosen = summarize(cell.values);
  cell.used = chosen.n;
  if (chosen.n > 0) {
    cell.value = chosen.mean;
    cell.std = chosen.std;
    cell.ci95 = t_interval_half_width(chosen);
  } else if (!pooled.empty()) {
    cell.status = "no " + options.select_by;  // finished, but nothing to choose a variant by
  } else {
    cell.status = empty_cell_status(runs, cell);
  }
  return cell;
}

// Every other row against the `versus` row, column by column: Welch's test over the seeds,
// then (Holm) each p adjusted for the number of tests in the table.
void test_against(ComparisonTable& t, const std::string& versus, PAdjust adjust) {
  const auto it = std::find(t.row_labels.begin(), t.row_labels.end(), versus);
  if (it == t.row_labels.end())
    throw InputError("fathom export table", 0, "--versus",
                     "'" + versus + "' is not a row (rows: " + join(t.row_labels, ", ") + ")");
  const size_t reference = static_cast<size_t>(it - t.row_labels.begin());
  for (size_t row = 0; row < t.row_labels.size(); ++row) {
    if (row == reference) continue;
    for (size_t col = 0; col < t.col_labels.size(); ++col) {
      TableCell& cell = t.cells[row][col];
      if (!cell.value || !t.cells[reference][col].value) continue;
      if (auto w = welch_t_test(cell.values, t.cells[reference][col].values))
        cell.p = cell.p_raw = w->p;
      else
        cell.p_needs_seeds = true;
    }
  }
  std::vector<TableCell*> tested;
  for (auto& line : t.cells)
    for (auto& cell : line)
      if (cell.p) tested.push_back(&cell);
  if (adjust == PAdjust::Holm) {
    std::vector<double> raw;
    for (const TableCell* cell : tested) raw.push_back(*cell->p_raw);
    const std::vector<double> adjusted = holm_adjust(raw);
    for (size_t i = 0; i < tested.size(); ++i) tested[i]->p = adjusted[i];
  }
  t.versus = versus;
  t.p_adjust = adjust;
  t.tests = static_cast<int>(tested.size());
}

// The distinct run counts behind the cells' values.
std::set<int> value_counts(const ComparisonTable& t) {
  std::set<int> counts;
  for (const auto& line : t.cells)
    for (const auto& c : line)
      if (c.value) counts.insert(c.used);
  return counts;
}

// What each cell holds, said once under the table: how it aggregates, over how many runs (one
// n for all cells, or each cell's own when they differ: t.show_n), and where a std is.
std::string aggregation_note(const ComparisonTable& t, const TableOptions& options,
                             const std::vector<std::string>& variant_keys, size_t total_runs,
                             bool up) {
  const std::set<int> counts = value_counts(t);
  bool any_std = false;
  for (const auto& line : t.cells)
    for (const auto& c : line) any_std = any_std || c.std.has_value();
  const int n = counts.size() == 1 ? *counts.begin() : 0;
  std::string how;
  if (options.value == RunValue::Best)
    how = std::string("each run's ") + (up ? "highest" : "lowest") +
          " value over training (its final value where it has no curve); ";
  if (options.value == RunValue::Last)
    how =
        "each run's last logged value, the end of training, not its best checkpoint's (its "
        "final value where it has no curve); ";
  if (options.at) how = "each run's last value at " + budget_text(*options.at) + "; ";
  if (options.agg == CellAgg::Mean || variant_keys.empty()) {
    how += n == 1  ? "the cell's one finished run"
           : n > 1 ? "mean over the cell's " + std::to_string(n) + " finished runs"
                   : "mean over the cell's finished runs";
    if (!variant_keys.empty()) how += " (pooled over " + join(variant_keys, ", ") + ")";
  } else {
    const std::string by = options.select_by == options.metric
                               ? "its"
                               : options.select_by + "'s (" +
                                     (higher_is_better(options.select_by) ? "higher" : "lower") +
                                     " is better)";
    how += n == 1  ? "the variant best by " + by + " value (one run each)"
           : n > 1 ? "mean over the " + std::to_string(n) + " seeds of the variant best by " + by +
                         " mean"
                   : "mean over the seeds of the variant best by " + by + " mean";
  }
  if (options.spread != Spread::None) {
    const std::string spread =
        options.spread == Spread::Std ? "sample std" : "half-width of the 95 % t-interval";
    if (any_std)
      how += (counts.count(1) ? " ± " + spread + " where n >= 2" : " ± " + spread);
    else if (n > 0 || t.show_n)
      how += std::string("; no ") + (options.spread == Spread::Std ? "std" : "interval") +
             " (no cell has two finished runs)";
  }
  if (t.show_n) how += "; (n=...) = the runs behind a value";
  if (options.agg == CellAgg::Best && !variant_keys.empty()) how += "; [...] = the variant chosen";
  return options.metric + ": " + how + "; " + std::to_string(total_runs) + " runs; " +
         (up ? "higher" : "lower") + " is better";
}

}  // namespace

std::optional<std::string> early_stop_note(const std::vector<TableRun>& runs) {
  int used = 0, stopped = 0;
  int64_t first = 0, last = 0;
  for (const auto& r : runs) {
    if (!r.metric || r.status != db::status::kFinished) continue;
    ++used;
    if (!r.stopped_early_at) continue;
    const int64_t at = *r.stopped_early_at;
    first = stopped++ ? std::min(first, at) : at;
    last = std::max(last, at);
  }
  if (stopped == 0) return std::nullopt;
  const std::string at = first == last
                             ? "update " + std::to_string(first)
                             : "updates " + std::to_string(first) + "-" + std::to_string(last);
  if (stopped == used) return "every run stopped early (train.patience; tag early_stop), at " + at;
  return "⚠ " + std::to_string(stopped) + " of " + std::to_string(used) +
         " runs stopped early (train.patience; tag early_stop) at " + at +
         ": their values are of fewer updates than the others'";
}

namespace {

void mark_best(ComparisonTable& t, BoldBest bold, bool up) {
  if (bold == BoldBest::None) return;
  const size_t outer = bold == BoldBest::Column ? t.col_labels.size() : t.row_labels.size();
  const size_t inner = bold == BoldBest::Column ? t.row_labels.size() : t.col_labels.size();
  for (size_t o = 0; o < outer; ++o) {
    auto at = [&](size_t i) -> TableCell& {
      return bold == BoldBest::Column ? t.cells[i][o] : t.cells[o][i];
    };
    std::optional<double> best;
    for (size_t i = 0; i < inner; ++i)
      if (auto v = at(i).value; v && (!best || (up ? *v > *best : *v < *best))) best = v;
    for (size_t i = 0; i < inner; ++i)
      if (best && at(i).value && *at(i).value == *best) at(i).best = true;
  }
}

std::string known_axes(const std::vector<TableRun>& runs) {
  std::set<std::string> keys;
  for (const auto& r : runs)
    for (const auto& [k, v] : r.axes) keys.insert(k);
  std::string out;
  for (const auto& k : keys) out += (out.empty() ? "" : ", ") + k;
  return out.empty() ? "none" : out;
}

std::vector<std::string> split_composite(const std::string& key) { return split(key, '+'); }

}  // namespace

std::optional<std::string> composite_value(const std::map<std::string, std::string>& axes,
                                           const std::string& key) {
  std::string value;
  for (const auto& part : split_composite(key)) {
    auto it = axes.find(part);
    if (it == axes.end()) return std::nullopt;
    value += (value.empty() ? "" : " / ") + it->second;
  }
  return value;
}

namespace {

// A composite key "a+b" (e.g. the keys of one zip group: norm+init+connection) gets the value
// "va / vb" in every run that has all of its parts.
std::vector<TableRun> with_composite(std::vector<TableRun> runs, const std::string& key) {
  if (split_composite(key).size() < 2) return runs;
  for (auto& r : runs)
    if (auto value = composite_value(r.axes, key)) r.axes[key] = *value;
  return runs;
}

[[noreturn]] void refuse(const std::string& flag, const std::string& message) {
  throw InputError("fathom export table", 0, flag, message);
}

// The flags given, and every run having a value on the row and column axes and a final
// metric to show.
void check_axes_and_metric(const std::vector<TableRun>& runs, const TableOptions& options) {
  if (options.rows.empty()) refuse("--rows", "give the axis of the rows");
  if (options.metric.empty()) refuse("--metric", "give a metric");
  if (options.rows == options.cols) refuse("--cols", "rows and columns are the same axis");
  for (const auto& [flag, key] :
       {std::pair{"--rows", options.rows}, std::pair{"--cols", options.cols}}) {
    if (key.empty()) continue;
    for (const auto& r : runs)
      if (!r.axes.count(key))
        refuse(flag, "run " + std::to_string(r.id) + " has no value for '" + key +
                         "' (axes of the sweep: " + known_axes(runs) + ")");
  }
  const bool metric_seen =
      std::any_of(runs.begin(), runs.end(), [](const TableRun& r) { return r.metric.has_value(); });
  const bool any_finished = std::any_of(runs.begin(), runs.end(), [](const TableRun& r) {
    return r.status == db::status::kFinished;
  });
  if (!metric_seen && any_finished && options.at)
    refuse("--at", "no run has a point of '" + options.metric + "' inside " +
                       budget_text(*options.at) +
                       ": each one's first comes after it (name a larger budget, or set "
                       "train.valid_at: [" +
                       budget_setting(*options.at) + "] in the runs' config)");
  if (!metric_seen && any_finished)
    refuse("--metric", "no run of the sweep recorded a final metric '" + options.metric +
                           "' (e.g. test_bleu, valid_ppl, valid_loss, test_ppl, train_loss)");
}

// The axes that split a cell into variants: neither the rows' nor the columns' (nor a part of
// a composite one), not the seed, and varying inside some cell.
std::vector<std::string> variant_keys_of(const std::vector<TableRun>& runs,
                                         const TableOptions& options) {
  std::vector<std::string> shown = split_composite(options.rows);
  if (!options.cols.empty())
    for (const auto& k : split_composite(options.cols)) shown.push_back(k);
  shown.push_back(options.rows);
  shown.push_back(options.cols);
  std::vector<std::string> keys;
  for (const auto& r : runs)
    for (const auto& [k, v] : r.axes)
      if (std::find(shown.begin(), shown.end(), k) == shown.end() && k != options.seed_key &&
          std::find(keys.begin(), keys.end(), k) == keys.end())
        keys.push_back(k);
  for (const auto& r : runs)
    for (const auto& k : keys)
      if (!r.axes.count(k))
        refuse("--sweep", "run " + std::to_string(r.id) + " has no value for axis '" + k + "'");

  // A key that never varies inside a cell (a zip partner of the row or column axis, e.g.
  // decoder_layers beside encoder_layers) splits nothing: it is not a variant.
  auto cell_key = [&](const TableRun& r) {
    return r.axes.at(options.rows) + '\x1f' + (options.cols.empty() ? "" : r.axes.at(options.cols));
  };
  auto one_value_per_cell = [&](const std::string& k) {
    std::map<std::string, std::string> value_in_cell;
    for (const auto& r : runs) {
      const auto [it, fresh] = value_in_cell.emplace(cell_key(r), r.axes.at(k));
      if (!fresh && it->second != r.axes.at(k)) return false;
    }
    return true;
  };
  keys.erase(std::remove_if(keys.begin(), keys.end(), one_value_per_cell), keys.end());
  return keys;
}

// Choosing a cell's variant is model selection: on validation data unless the user insists.
void check_selection(const std::vector<TableRun>& runs, const TableOptions& options) {
  if (is_test_metric(options.select_by) && !options.select_on_test)
    refuse("--select-by", "choosing each cell's variant on " + options.select_by +
                              ", a test metric, is model selection on the test set; choose on "
                              "validation data (the default, valid_loss), or add "
                              "--select-on-test to do it anyway (the table then says so)");
  if (std::none_of(runs.begin(), runs.end(), [&](const TableRun& r) {
        return r.status == db::status::kFinished && r.final_metrics.count(options.select_by);
      }))
    refuse("--select-by", "no finished run of the sweep recorded '" + options.select_by +
                              "' to choose a variant by (e.g. valid_loss, valid_ppl)");
}

// Each (row, column)'s runs into one cell. True when some cell's value leaves out runs of it
// that diverged.
bool fill_cells(ComparisonTable& t, const std::vector<TableRun>& runs, const TableOptions& options,
                const std::vector<std::string>& variant_keys, bool up) {
  bool partial_divergence = false;
  for (const auto& row : t.row_labels) {
    std::vector<TableCell> line;
    for (const auto& col : t.col_labels) {
      std::vector<const TableRun*> members;
      for (const auto& r : runs)
        if (r.axes.at(options.rows) == row &&
            (options.cols.empty() || r.axes.at(options.cols) == col))
          members.push_back(&r);
      line.push_back(make_cell(members, options, variant_keys, up));
      if (line.back().value && line.back().diverged > 0) partial_divergence = true;
    }
    t.cells.push_back(std::move(line));
  }
  return partial_divergence;
}

}  // namespace

std::optional<std::string> computed_differently_note(const std::vector<TableRun>& runs) {
  std::vector<int64_t> ids;
  std::vector<ComputedWith> computed;
  for (const auto& r : runs) ids.push_back(r.id), computed.push_back(r.computed_with);
  return computed_differently_note(ids, computed);
}

ComparisonTable build_comparison_table(const std::vector<TableRun>& input,
                                       const TableOptions& options) {
  const std::vector<TableRun> runs =
      with_composite(with_composite(input, options.rows), options.cols);
  check_axes_and_metric(runs, options);
  const std::vector<std::string> variant_keys = variant_keys_of(runs, options);
  const bool choosing = options.agg == CellAgg::Best && !variant_keys.empty();
  if (choosing) check_selection(runs, options);

  ComparisonTable t;
  t.row_key = options.rows;
  t.col_key = options.cols;
  t.metric = options.metric;
  t.spread = options.spread;
  t.digits = options.digits;
  t.row_labels = first_seen(runs, options.rows);
  t.col_labels = options.cols.empty() ? std::vector<std::string>{options.metric}
                                      : first_seen(runs, options.cols);
  const bool up = higher_is_better(options);
  const bool partial_divergence = fill_cells(t, runs, options, variant_keys, up);
  mark_best(t, options.bold, up);
  if (!options.versus.empty()) test_against(t, options.versus, options.p_adjust);

  t.show_n = value_counts(t).size() > 1;
  t.show_variant = choosing;
  if (!choosing) t.pooled = variant_keys;
  t.notes.push_back(aggregation_note(t, options, variant_keys, runs.size(), up));
  if (auto note = final_model_note(runs, options)) t.notes.push_back(*note);
  if (choosing && is_test_metric(options.select_by))
    t.notes.push_back("⚠ each variant was chosen on " + options.select_by +
                      ", a test metric: model selection on the test set, so the values are "
                      "optimistic");
  if (!t.versus.empty()) {
    std::string note = "(p=...) Welch's two-sided t-test over the seeds against the row '" +
                       t.versus + "' of the same column";
    if (t.p_adjust == PAdjust::Holm && t.tests > 1)
      note += ", Holm-adjusted over the table's " + std::to_string(t.tests) + " tests";
    else if (t.tests > 1)
      note += ", not adjusted for the table's " + std::to_string(t.tests) + " tests";
    t.notes.push_back(note + "; n < 2: too few seeds on a side to test");
  }
  if (auto note = computed_differently_note(runs)) t.notes.push_back(*note);
  if (auto note = early_stop_note(runs)) t.notes.push_back(*note);
  if (partial_divergence)
    t.notes.push_back("† some runs of the cell diverged; the value is over the runs that finished");
  return t;
}

TableRun table_run(const db::RunRecord& rec, const std::map<std::string, std::string>& tags,
                   const std::string& metric, const std::vector<std::string>& config_keys) {
  TableRun r;
  r.id = rec.id;
  r.status = rec.status;
  r.diverged_step = rec.diverged_step;
  for (const auto& [key, value] : tags)
    if (key.rfind("axis.", 0) == 0) r.axes[key.substr(5)] = value;
  for (const auto& composite : config_keys)
    for (const auto& key : split_composite(composite)) {
      if (key.empty() || r.axes.count(key)) continue;
      // Not an axis: read it from the run's config (a value set in the base).
      if (std::string value = db::config_value(rec.config_json, key); !value.empty())
        r.axes[key] = value;
    }
  if (auto it = rec.final_metrics.find(metric);
      it != rec.final_metrics.end() && std::isfinite(it->second))
    r.metric = it->second;
  for (const auto& [name, value] : rec.final_metrics)
    if (std::isfinite(value)) r.final_metrics[name] = value;
  if (auto it = tags.find(db::kFinalModelTag); it != tags.end())
    r.final_model = db::parse_final_model_tag(it->second);
  r.computed_with = computed_with(rec, tags);
  if (db::ended_by_early_stop(tags)) r.stopped_early_at = rec.updates;
  return r;
}

void use_best_of_run(std::vector<TableRun>& runs, const db::Store& store,
                     const TableOptions& options) {
  std::vector<int64_t> ids;
  for (const auto& r : runs) ids.push_back(r.id);
  const auto best = store.best_points(ids, options.metric, higher_is_better(options));
  for (auto& r : runs) {
    auto it = best.find(r.id);
    if (it == best.end()) continue;  // no curve: the final value stays
    r.metric = it->second.value;
    r.metric_step = it->second.step;
  }
}

void use_last_of_run(std::vector<TableRun>& runs, const db::Store& store,
                     const std::string& metric) {
  for (auto& r : runs) {
    const int64_t step = store.last_metric_step(r.id, metric);
    if (step < 0) continue;  // no curve: the final value stays
    const auto points = store.metric_points_after(r.id, metric, step - 1);
    if (points.empty()) continue;
    const double v = points.back().value;
    r.metric = std::isfinite(v) ? v : std::numeric_limits<double>::infinity();
    r.metric_step = points.back().step;
  }
}

void use_run_value(std::vector<TableRun>& runs, const db::Store& store,
                   const TableOptions& options) {
  if (options.value == RunValue::Best) use_best_of_run(runs, store, options);
  if (options.value == RunValue::Last) use_last_of_run(runs, store, options.metric);
}

RunValue run_value_named(const std::string& name, const std::string& command) {
  if (name == "final") return RunValue::Final;
  if (name == "best") return RunValue::Best;
  if (name == "last") return RunValue::Last;
  throw InputError(command, 0, "--value", "'" + name + "': expected final, best or last");
}

std::vector<TableRun> load_table_runs(const db::Store& store, const std::string& sweep,
                                      const std::string& metric,
                                      const std::vector<std::string>& config_keys) {
  return load_table_runs(store, select_sweep_runs(store, sweep, ""), metric, config_keys);
}

ComparisonTable sweep_comparison_table(const db::Store& store, const std::string& sweep,
                                       const TableOptions& options, const std::string& where) {
  const SweepRuns selected = select_sweep_runs(store, sweep, where);
  auto runs = load_table_runs(store, selected, options.metric, {options.rows, options.cols});
  TableOptions read = options;  // a least budget made definite
  const std::vector<std::string> left_out =
      read_run_values(runs, store, read, "fathom export table");
  ComparisonTable table = build_comparison_table(runs, read);
  if (auto note = selected.note()) table.notes.push_back(*note);
  table.notes.insert(table.notes.end(), left_out.begin(), left_out.end());
  return table;
}

std::vector<TableRun> load_table_runs(const db::Store& store, const SweepRuns& selected,
                                      const std::string& metric,
                                      const std::vector<std::string>& config_keys) {
  std::vector<TableRun> runs;
  for (const auto& rec : selected.runs)
    runs.push_back(table_run(rec, store.tags(rec.id), metric, config_keys));
  return runs;
}

}  // namespace fathom::experiments
