#include "experiments/verdicts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>

#include "base/metrics/power.h"
#include "base/metrics/statistics.h"
#include "base/util/error.h"
#include "base/util/strings.h"
#include "db/run_status.h"
#include "experiments/value_at_budget.h"

namespace fathom::experiments {
namespace {

[[noreturn]] void refuse_verdicts(const std::string& field, const std::string& message) {
  throw InputError("fathom export verdicts", 0, field, message);
}

void check_options(const VerdictOptions& o) {
  if (o.metrics.empty()) refuse_verdicts("--metrics", "give one or more metrics to test");
  if (o.versus.empty()) refuse_verdicts("--versus", "give the row (or rows) to test against");
  if (!(o.alpha > 0 && o.alpha < 1)) refuse_verdicts("--alpha", "must lie in (0, 1)");
  if (!(o.power > 0 && o.power < 1)) refuse_verdicts("--power", "must lie in (0, 1)");
}

// "A vs B" and "B vs A" of one metric and column: the same test.
std::string pair_key(const std::string& metric, const std::string& column, const std::string& a,
                     const std::string& b) {
  return metric + '\x1f' + column + '\x1f' + std::min(a, b) + '\x1f' + std::max(a, b);
}

std::string verdict_number(double v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string p_text(double p) {
  if (p < 0.001) return "< 0.001";
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.3f", p);
  return buf;
}

// The runs of `ids` that went into a cell's mean, by seed.
std::map<std::string, int64_t> runs_by_seed(const std::vector<int64_t>& ids,
                                            const std::map<int64_t, const TableRun*>& by_id,
                                            const std::string& seed_key) {
  std::map<std::string, int64_t> out;
  for (int64_t id : ids) {
    const TableRun& r = *by_id.at(id);
    if (r.status != db::status::kFinished || !r.metric || !std::isfinite(*r.metric)) continue;
    const auto seed = r.axes.find(seed_key);
    out[seed == r.axes.end() ? std::to_string(id) : seed->second] = id;
  }
  return out;
}

// Each test of `metric` against each reference row, added to `family` unless met already.
void add_metric_tests(VerdictFamily& family, std::set<std::string>& seen,
                      const std::vector<TableRun>& runs, const std::string& metric,
                      const VerdictOptions& o) {
  std::map<int64_t, const TableRun*> by_id;
  for (const auto& r : runs) by_id[r.id] = &r;
  for (const auto& versus : o.versus) {
    TableOptions t = o.table;
    t.metric = metric;
    t.versus = versus;
    t.p_adjust = PAdjust::None;  // the family is adjusted as a whole below
    const ComparisonTable table = build_comparison_table(runs, t);
    const size_t reference =
        static_cast<size_t>(std::find(table.row_labels.begin(), table.row_labels.end(), versus) -
                            table.row_labels.begin());
    for (size_t col = 0; col < table.col_labels.size(); ++col)
      for (size_t row = 0; row < table.row_labels.size(); ++row) {
        if (row == reference) continue;
        const TableCell& cell = table.cells[row][col];
        const TableCell& base = table.cells[reference][col];
        const std::string& column = table.col_labels[col];
        const std::string& label = table.row_labels[row];
        if (!seen.insert(pair_key(metric, column, label, versus)).second) {
          if (cell.p_raw || cell.p_needs_seeds) ++family.duplicates;
          continue;
        }
        if (cell.p_needs_seeds)
          family.untested.push_back(metric + ", " + column + ": " + label + " vs " + versus +
                                    " (n < 2)");
        if (!cell.p_raw) continue;
        VerdictTest v;
        v.metric = metric;
        v.column = column;
        v.row = label;
        v.versus = versus;
        v.mean_row = *cell.value;
        v.mean_versus = *base.value;
        v.n_row = cell.used;
        v.n_versus = base.used;
        v.p_raw = *cell.p_raw;
        v.row_variant = cell.variant;
        v.versus_variant = base.variant;
        v.row_runs = runs_by_seed(cell.run_ids, by_id, t.seed_key);
        v.versus_runs = runs_by_seed(base.run_ids, by_id, t.seed_key);
        // The spread the seeds are planned on: the two arms' variances with equal weight.
        if (cell.std && base.std) {
          const double pooled = std::sqrt((*cell.std * *cell.std + *base.std * *base.std) / 2);
          if (pooled > 0) v.effect = (v.mean_row - v.mean_versus) / pooled;
          v.df_per_seed = welch_df_per_seed(*cell.std, *base.std);
        }
        family.tests.push_back(v);
      }
  }
}

// Holm over the whole family, then the seeds each inconclusive test would need.
void adjust_family(VerdictFamily& family) {
  std::vector<double> raw;
  for (const auto& t : family.tests) raw.push_back(t.p_raw);
  const std::vector<double> adjusted = holm_adjust(raw);
  for (size_t i = 0; i < family.tests.size(); ++i) {
    VerdictTest& t = family.tests[i];
    t.p_holm = adjusted[i];
    t.decided = t.p_holm < family.alpha;
    if (!t.decided && t.effect)
      t.seeds_needed =
          seeds_for_power(*t.effect, family.planning_alpha(), family.power, 10000, t.df_per_seed);
  }
}

void family_notes(VerdictFamily& family) {
  family.notes.push_back(
      "(p) Welch's two-sided t-test over the seeds (Welch 1947; Satterthwaite degrees of "
      "freedom), the row's cell against the reference row's of the same column; p (Holm) "
      "adjusted over the whole family (Holm 1979): a verdict is decided where it is below " +
      verdict_number(family.alpha, 3));
  family.notes.push_back(
      "seeds per arm: the fewest n for " + verdict_number(100 * family.power, 0) +
      " % power of a two-sided Welch test (noncentral t with Welch-Satterthwaite's degrees of "
      "freedom at n per arm; Cohen 1988) at the observed difference over the pooled standard "
      "deviation sqrt((s_a^2 + s_b^2) / 2), at alpha / m = " +
      verdict_number(family.planning_alpha(), 5) +
      " (the level Holm's first step asks; conservative for the others); a plan from the seeds at "
      "hand, not a promise");
  if (family.duplicates > 0)
    family.notes.push_back(std::to_string(family.duplicates) +
                           " tests met again under another reference row (A vs B and B vs A) "
                           "are counted once");
  if (!family.untested.empty())
    family.notes.push_back("too few seeds to test (not in the family): " +
                           join(family.untested, "; "));
}

}  // namespace

VerdictFamily build_verdicts(const std::vector<TableRun>& runs, const VerdictOptions& options) {
  check_options(options);
  VerdictFamily family;
  family.alpha = options.alpha;
  family.power = options.power;
  std::set<std::string> seen;
  for (const auto& metric : options.metrics) {
    std::vector<TableRun> with = runs;
    for (auto& r : with) {
      const auto it = r.final_metrics.find(metric);
      r.metric = it == r.final_metrics.end() ? std::nullopt : std::optional<double>(it->second);
    }
    add_metric_tests(family, seen, with, metric, options);
  }
  adjust_family(family);
  family_notes(family);
  return family;
}

VerdictFamily sweep_verdicts(const db::Store& store, const std::string& sweep,
                             const VerdictOptions& options, const std::string& where) {
  check_options(options);
  VerdictFamily family;
  family.alpha = options.alpha;
  family.power = options.power;
  std::set<std::string> seen;
  const SweepRuns selected = select_sweep_runs(store, sweep, where);
  std::optional<std::string> computed_note, early_note;  // the same runs for every metric
  std::vector<std::string> budget_notes;  // which runs each metric's budget left out (once each)
  std::optional<Budget> at = options.table.at;  // a least budget as the first metric found it
  for (const auto& metric : options.metrics) {
    auto runs = load_table_runs(store, selected, metric, {options.table.rows, options.table.cols});
    if (metric == options.metrics.front()) {
      computed_note = computed_differently_note(runs);
      early_note = early_stop_note(runs);
    }
    TableOptions t = options.table;
    t.metric = metric;
    t.at = at;
    for (auto& note : read_run_values(runs, store, t, "fathom export verdicts"))
      if (std::find(budget_notes.begin(), budget_notes.end(), note) == budget_notes.end())
        budget_notes.push_back(std::move(note));
    at = t.at;
    add_metric_tests(family, seen, runs, metric, options);
  }
  adjust_family(family);
  family_notes(family);
  if (at)
    family.notes.push_back("each run's last value at " + budget_text(*at) +
                           ", not at its end: the arms are compared at an equal budget");
  family.notes.insert(family.notes.end(), budget_notes.begin(), budget_notes.end());
  if (computed_note) family.notes.push_back(*computed_note);
  // At a budget a run that stopped early is counted where it stood then (or left out).
  if (early_note && !at) family.notes.push_back(*early_note);
  if (auto note = selected.note()) family.notes.push_back(*note);
  return family;
}

std::string verdict_text(const VerdictTest& t) {
  if (t.decided) return t.mean_row < t.mean_versus ? "decided: lower" : "decided: higher";
  const std::string at = t.n_row == t.n_versus ? std::to_string(t.n_row) + " seeds"
                                               : std::to_string(t.n_row) + " and " +
                                                     std::to_string(t.n_versus) + " seeds";
  // The observed difference would be found at these seeds with the planned power, yet was not
  // (power is no certainty, and the level planned at is the family's strictest).
  if (t.seeds_needed && *t.seeds_needed <= std::min(t.n_row, t.n_versus))
    return "inconclusive at " + at + ", though " + std::to_string(*t.seeds_needed) +
           " per arm would detect the observed difference most of the time: a few more would "
           "decide it";
  if (t.seeds_needed)
    return "inconclusive at " + at + "; about " + std::to_string(*t.seeds_needed) +
           " per arm would decide it";
  if (t.mean_row == t.mean_versus || (t.effect && *t.effect == 0))
    return "inconclusive at " + at + "; no difference observed";
  if (!t.effect) return "inconclusive at " + at;
  return "inconclusive at " + at + "; more than 10000 per arm would be needed";
}

std::string verdicts_to_markdown(const VerdictFamily& family, int digits) {
  std::string out = "Holm family: " + std::to_string(family.tests.size()) +
                    " tests, family-wise alpha " + verdict_number(family.alpha, 3) + "\n\n";
  out += "| metric | column | row | versus | row mean | versus mean | difference | p | p (Holm, " +
         std::to_string(family.tests.size()) + ") | verdict |\n";
  out += "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |\n";
  for (const auto& t : family.tests) {
    const std::string row = t.row + (t.row_variant.empty() ? "" : " [" + t.row_variant + "]");
    const std::string versus =
        t.versus + (t.versus_variant.empty() ? "" : " [" + t.versus_variant + "]");
    out += "| " + t.metric + " | " + t.column + " | " + row + " | " + versus + " | " +
           verdict_number(t.mean_row, digits) + " | " + verdict_number(t.mean_versus, digits) +
           " | " + (t.mean_row >= t.mean_versus ? "+" : "") +
           verdict_number(t.mean_row - t.mean_versus, digits) + " | " + p_text(t.p_raw) + " | " +
           p_text(t.p_holm) + " | " + verdict_text(t) + " |\n";
  }
  out += "\n";
  for (const auto& note : family.notes) out += "*" + note + "*  \n";
  return out;
}

std::string verdicts_to_csv(const VerdictFamily& family, const VerdictCsvColumns& extra) {
  if (!extra.header.empty() && extra.cells.size() != family.tests.size())
    throw std::invalid_argument("verdicts CSV: " + std::to_string(extra.cells.size()) +
                                " rows of extra columns for " +
                                std::to_string(family.tests.size()) + " tests");
  auto quote = [](const std::string& s) {  // always quoted, as this CSV has always been
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  std::string out =
      "metric,column,row,versus,row_mean,versus_mean,n_row,n_versus,p,p_holm,family_size,alpha,"
      "decided,effect,seeds_needed" +
      (extra.header.empty() ? "" : "," + extra.header) + "\n";
  size_t index = 0;
  char buf[512];
  for (const auto& t : family.tests) {
    std::snprintf(buf, sizeof buf, ",%.6g,%.6g,%d,%d,%.6g,%.6g,%zu,%.6g,%s,", t.mean_row,
                  t.mean_versus, t.n_row, t.n_versus, t.p_raw, t.p_holm, family.tests.size(),
                  family.alpha, t.decided ? "true" : "false");
    out += quote(t.metric) + "," + quote(t.column) + "," + quote(t.row) + "," + quote(t.versus) +
           buf + (t.effect ? verdict_number(*t.effect, 4) : "") + "," +
           (t.seeds_needed ? std::to_string(*t.seeds_needed) : "") +
           (extra.header.empty() ? "" : "," + extra.cells[index]) + "\n";
    ++index;
  }
  return out;
}

}  // namespace fathom::experiments
