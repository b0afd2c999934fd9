#include "experiments/report.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "base/util/error.h"
#include "base/util/strings.h"
#include "db/metric_names.h"
#include "db/metric_presentation.h"
#include "experiments/comparison_table.h"
#include "experiments/lr_transfer.h"
#include "experiments/report_budget.h"
#include "experiments/report_fork.h"
#include "experiments/report_fork_seeds.h"
#include "experiments/report_fork_verdicts.h"
#include "experiments/report_numbers.h"
#include "experiments/report_samples.h"
#include "experiments/sweep_runs.h"
#include "experiments/text_table.h"
#include "experiments/value_at_budget.h"

namespace fathom::experiments {
namespace {
namespace fs = std::filesystem;

std::string date(double unix_seconds) {
  if (unix_seconds <= 0) return "-";
  const std::time_t t = static_cast<std::time_t>(unix_seconds);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", std::gmtime(&t));
  return buf;
}

std::string status_text(const db::RunRecord& r) {
  return r.diverged_step ? r.status + "@" + std::to_string(*r.diverged_step) : r.status;
}

// Markdown table cells must not contain a bare '|'.
std::string cell(std::string s) {
  for (size_t p = 0; (p = s.find('|', p)) != std::string::npos; p += 2) s.replace(p, 1, "\\|");
  return s;
}

void runs_table(std::ostream& out, const std::vector<db::RunRecord>& runs,
                const std::vector<std::string>& wanted) {
  std::vector<std::string> metrics;  // a column only for a metric some run has
  for (const auto& m : wanted)
    if (std::any_of(runs.begin(), runs.end(),
                    [&](const db::RunRecord& r) { return r.final_metrics.count(m) > 0; }))
      metrics.push_back(m);
  out << "| id | run | status | updates |";
  for (const auto& m : metrics) out << " " << m << " |";
  out << "\n|---:|---|---|---:|";
  for (size_t i = 0; i < metrics.size(); ++i) out << "---:|";
  out << "\n";
  std::vector<std::vector<std::string>> columns;  // [metric][run], "-" where a run has none
  for (const auto& m : metrics) {
    std::vector<double> values;
    for (const auto& r : runs)
      if (auto it = r.final_metrics.find(m); it != r.final_metrics.end())
        values.push_back(it->second);
    const std::vector<std::string> texts = column_numbers(values);
    columns.emplace_back();
    size_t next = 0;
    for (const auto& r : runs)
      columns.back().push_back(r.final_metrics.count(m) ? texts[next++] : "-");
  }
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto& r = runs[i];
    out << "| " << r.id << " | " << cell(r.name) << " | " << status_text(r) << " | " << r.updates
        << " |";
    for (const auto& column : columns) out << " " << column[i] << " |";
    out << "\n";
  }
}

// The curves a report draws, where the runs stored them (valid_bleu: train.valid_bleu;
// noise.b_simple: train.noise_scale).
const std::string* const kCurveMetrics[] = {&db::metric::kTrainLoss, &db::metric::kValidLoss,
                                            &db::metric::kValidPpl, &db::metric::kValidBleu,
                                            &db::metric::kNoiseBSimple};

// The curves a report draws, of those the runs stored.
std::vector<std::string> curve_metrics(const db::Store& store,
                                       const std::vector<db::RunRecord>& runs,
                                       const std::set<std::string>& stored) {
  std::vector<std::string> metrics;
  for (const std::string* m : kCurveMetrics)
    if (stored.count(*m)) metrics.push_back(*m);
  if (stored.count(db::metric::kLearningRate) && schedules_differ(store, runs))
    metrics.push_back(db::metric::kLearningRate);
  return metrics;
}

// `budget`: the tables' budget (report_budget.h), drawn on the figures of its axis.
void figures(std::ostream& out, const ReportOptions& options,
             const std::vector<db::RunRecord>& runs, const db::Store& store,
             const std::string& title, const std::string& colour_by, bool seed_groups = false,
             const std::optional<db::RunRecord>& reference = std::nullopt,
             const std::optional<Budget>& budget = std::nullopt) {
  std::set<std::string> stored;
  std::vector<int64_t> costed;  // the runs with a train_flops curve: the compute axis's
  for (const auto& r : runs)
    for (const auto& name : store.metric_names(r.id)) {
      stored.insert(name);
      if (name == db::metric::kTrainFlops) costed.push_back(r.id);
    }
  std::vector<int64_t> ids;
  for (const auto& r : runs) ids.push_back(r.id);
  out << "## Training curves\n\n";
  if (!options.render_curves) {
    out << "Figures need a build with Qt 6 and QCustomPlot (`fathom export plot`).\n\n";
    return;
  }
  if (seed_groups)
    out << "One curve per configuration: the mean over its seeds, shaded +-1 sample std; a cross "
           "marks where a seed diverged.\n\n";
  // One metric's figure of `of`, named `stem`, grouped or coloured as the sweep's figures are.
  auto request_of = [&](const std::string& metric, const std::vector<int64_t>& of,
                        const std::string& stem) {
    CurvesRequest request;
    request.title = title + ": " + metric;
    request.runs = of;
    request.metrics = {metric};
    request.colour_by = seed_groups ? "" : colour_by;
    request.file_stem = stem;
    if (seed_groups) request.group_by = {"axes"};
    return request;
  };
  for (const std::string& metric : curve_metrics(store, runs, stored)) {
    CurvesRequest request = request_of(metric, ids, "curves-" + metric);
    request.log_y = db::metric::presentation_of(metric).log_axis;
    if (reference) request.references = {reference->id};
    if (budget && budget->axis == "update" && metric.rfind("valid_", 0) == 0) request.at = budget;
    const std::string file = options.render_curves(request);
    if (!file.empty()) out << "![" << metric << "](" << file << ")\n\n";
  }
  if (budget && budget->axis == "tokens" && stored.count(db::metric::kValidLoss)) {
    CurvesRequest request =
        request_of(db::metric::kValidLoss, ids, "curves-" + db::metric::kValidLoss + "-tokens");
    request.title += " against target tokens";
    request.x = "tokens";
    request.at = budget;
    if (const std::string file = options.render_curves(request); !file.empty())
      out << "The validation loss against target tokens, the tables' budget dashed, a square "
             "where each was read:\n\n![valid_loss against tokens]("
          << file << ")\n\n";
  }
  // Runs that cost unequally per token (depths, widths) compared at equal cost too.
  const double spread = cost_spread(runs);
  if (spread < 1.05 || !stored.count(db::metric::kValidLoss) || costed.size() < 2) return;
  CurvesRequest request =
      request_of(db::metric::kValidLoss, costed, "curves-" + db::metric::kValidLoss + "-compute");
  request.title += " against training compute";
  request.x = "compute";
  if (budget && budget->axis == "compute") request.at = budget;
  const std::string file = options.render_curves(request);
  if (file.empty()) return;
  char ratio[32];
  std::snprintf(ratio, sizeof ratio, "%.2f", spread);
  out << "The runs' training costs differ (the costliest " << ratio
      << "x the cheapest, in FLOPs per target token), so the validation loss against training "
         "compute too (model FLOPs, methods.md s9.2): a run further left spent less"
      << (costed.size() < ids.size() ? " (" + std::to_string(ids.size() - costed.size()) +
                                           " runs trained before Fathom counted it left out)"
                                     : std::string())
      << "."
      << (request.at ? " The dashed line is the budget the tables at it read the runs at, a "
                       "square the value each one read there."
                     : "")
      << "\n\n"
      << "![" << db::metric::kValidLoss << " against compute](" << file << ")\n\n";
}

std::string file_safe(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '-';
  return s;
}

// With a chosen layout (--rows/--cols): one figure per column value (e.g. per depth), one curve
// per row (e.g. a method: the mean over its seeds, a band), drawn from the runs each table
// cell stands for -- with --agg best, the variant the table of the same metric chose.
void layout_figures(std::ostream& out, const ReportOptions& options, const db::Store& store,
                    const std::string& sweep, const SweepRuns& selected, const std::string& rows,
                    const std::string& cols) {
  const std::vector<db::RunRecord>& runs = selected.runs;
  std::set<std::string> stored;
  for (const auto& r : runs)
    for (const auto& name : store.metric_names(r.id)) stored.insert(name);
  out << "## Training curves\n\n";
  if (!options.render_curves) {
    out << "Figures need a build with Qt 6 and QCustomPlot (`fathom export plot`).\n\n";
    return;
  }
  out << "One figure per value of " << (cols.empty() ? "the sweep" : cols) << ", one curve per "
      << rows << ": the mean over its seeds"
      << (options.agg == CellAgg::Best
              ? " at the variant the tables chose (by the mean final " + options.select_by + ")"
              : "")
      << ", shaded +-1 sample std; a cross marks where a seed diverged.\n\n";
  const std::vector<std::string> group_by = split(rows, '+');
  const std::string col_name =
      cols.substr(cols.rfind('.') == std::string::npos ? 0 : cols.rfind('.') + 1);
  for (const std::string& metric : curve_metrics(store, runs, stored)) {
    TableOptions o;
    o.rows = rows;
    o.cols = cols;
    o.metric = metric;
    o.agg = options.agg;
    o.select_by = options.select_by;
    auto table_runs = load_table_runs(store, selected, metric, {rows, cols});
    if (std::none_of(table_runs.begin(), table_runs.end(),
                     [](const TableRun& r) { return r.metric.has_value(); })) {
      // A curve with no final value to choose a variant by: each cell stands for all its runs.
      o.agg = CellAgg::Mean;
      for (auto& r : table_runs) r.metric = 0.0;
    }
    const ComparisonTable t = build_comparison_table(table_runs, o);
    for (size_t c = 0; c < t.col_labels.size(); ++c) {
      std::vector<int64_t> ids;
      for (const auto& line : t.cells)
        ids.insert(ids.end(), line[c].run_ids.begin(), line[c].run_ids.end());
      if (ids.empty()) continue;
      const std::string where = cols.empty() ? "" : col_name + "=" + t.col_labels[c];
      CurvesRequest request;
      request.title = sweep + ": " + metric + (where.empty() ? "" : ", " + where);
      request.runs = ids;
      request.metrics = {metric};
      request.file_stem = "curves-" + metric + (where.empty() ? "" : "-" + file_safe(where));
      request.group_by = group_by;
      request.log_y = db::metric::presentation_of(metric).log_axis;
      const std::string file = options.render_curves(request);
      if (!file.empty()) out << "![" << metric << " " << where << "](" << file << ")\n\n";
    }
  }
}

// A sweep over learning rates: each method's loss against the rate and its sensitivity
// (experiments/lr_sensitivity.h), on the validation loss.
// `at`: at the runs' last validation, or (a second section where `fathom report --at` asked)
// at a budget, named in the heading.
void lr_sensitivity_section(std::ostream& out, const ReportOptions& options, const db::Store& store,
                            const SweepRuns& selected, const std::set<std::string>& axis_keys,
                            const std::vector<std::map<std::string, std::string>>& axes,
                            const std::optional<Budget>& at = std::nullopt) {
  std::set<std::string> rates;
  for (const auto& a : axes)
    if (auto it = a.find(kLrKey); it != a.end()) rates.insert(it->second);
  if (!axis_keys.count(kLrKey) || rates.size() < 2) return;
  const LrSensitivity s = lr_sensitivity_of(store, selected, db::metric::kValidLoss,
                                            at ? RunReading(*at) : RunReading(RunValue::Last));
  if (s.curves.empty()) return;
  out << "\n## Learning-rate sensitivity" << (at ? " at " + budget_text(*at) : "") << "\n\n"
      << text_table_to_markdown(lr_sensitivity_table(s)) << "\n";
  for (const auto& note : s.notes) out << "*" << note << "*  \n";
  const std::string stem = at ? "lr-sensitivity-at-budget" : "lr-sensitivity";
  if (options.render_lr_sensitivity)
    if (const std::string file = options.render_lr_sensitivity(s, stem); !file.empty())
      out << "\n![learning-rate sensitivity](" << file << ")\n";
  out << "\n";
}

// A sweep over depth x learning rate: each method's best rate per depth and its slope across
// depths (experiments/lr_transfer.h), on the validation loss.
void lr_transfer_section(std::ostream& out, const db::Store& store, const SweepRuns& selected,
                         const std::vector<std::map<std::string, std::string>>& axes,
                         const std::optional<Budget>& at = std::nullopt) {
  std::map<std::string, std::set<std::string>> values;
  for (const auto& a : axes)
    for (const auto& [key, value] : a) values[key].insert(value);
  const auto depth = std::find_if(values.begin(), values.end(), [](const auto& kv) {
    const std::string& key = kv.first;
    return kv.second.size() >= 2 && key.size() >= 6 &&
           key.compare(key.size() - 6, 6, "layers") == 0;
  });
  if (!values.count(kLrKey) || values.at(kLrKey).size() < 3 || depth == values.end()) return;
  const LrTransfer t = lr_transfer_of(store, selected, depth->first, db::metric::kValidLoss,
                                      at ? RunReading(*at) : RunReading(RunValue::Last));
  if (t.rows.empty()) return;
  out << "\n## Learning-rate transfer across depth" << (at ? " at " + budget_text(*at) : "")
      << "\n\n"
      << text_table_to_markdown(lr_transfer_table(t)) << "\n"
      << text_table_to_markdown(lr_transfer_slope_table(t)) << "\n";
  for (const auto& note : t.notes) out << "*" << note << "*  \n";
  out << "\n";
}

// Runs trained with train.probe_every: what happened inside their layers, a heatmap per run of
// the probes that tell most (docs/probes.md), every run on one colour scale.
void probes_section(std::ostream& out, const ReportOptions& options, const db::Store& store,
                    const std::vector<db::RunRecord>& runs) {
  constexpr size_t kMaxRuns = 8;  // a page of heatmaps; the rest: `fathom export plot probe`
  std::vector<const db::RunRecord*> probed;
  for (const auto& r : runs)
    if (!store.probe_names(r.id).empty()) probed.push_back(&r);
  if (probed.empty()) return;
  out << "\n## Training probes\n\n"
      << probed.size() << " run(s) recorded training probes (docs/probes.md). Each heatmap: "
      << "sub-layers top to bottom (encoder, then decoder), probe points left to right; the runs "
      << "of one probe share a colour scale; per-head probes show the largest head.";
  if (probed.size() > kMaxRuns)
    out << " The first " << kMaxRuns << " runs are drawn; `fathom export plot probe --runs ...` "
        << "draws any.";
  out << "\n\n";
  if (probed.size() > kMaxRuns) probed.resize(kMaxRuns);
  for (const std::string probe : {"stream.rms", "attn.max_logit", "attn.entropy"}) {
    std::vector<std::pair<int64_t, db::ProbeSeries>> series;
    for (const auto* r : probed)
      if (auto s = store.probe_series(r->id, probe); !s.steps.empty())
        series.emplace_back(r->id, s);
    if (series.empty()) continue;
    out << "### " << probe << "\n\n";
    const std::vector<std::string> files =
        options.render_probes ? options.render_probes(series, probe, "probe-" + probe)
                              : std::vector<std::string>();
    if (files.empty()) {
      out << "(figures need a build with Qt)\n\n";
      continue;
    }
    for (size_t i = 0; i < files.size() && i < series.size(); ++i)
      out << "![run " << series[i].first << "](" << files[i] << ")\n";
    out << "\n";
  }
}

// "built from git abc1234, def5678." and, for a build with uncommitted changes
// (cmake/git_revision.cmake), what that means.
std::string builds_text(const std::set<std::string>& revisions) {
  const bool dirty = std::any_of(revisions.begin(), revisions.end(), [](const std::string& r) {
    return r.find("-dirty") != std::string::npos;
  });
  return "built from git " +
         (revisions.empty() ? "-" : join({revisions.begin(), revisions.end()}, ", ")) + "." +
         (dirty ? " A revision marked -dirty was built with uncommitted changes: its hash alone "
                  "does not reproduce the runs."
                : "");
}

// The "Axes" table: each axis of the runs with its values in order of appearance; returns the
// axes.
std::set<std::string> axes_section(std::ostream& out,
                                   const std::vector<std::map<std::string, std::string>>& axes) {
  out << "## Axes\n\n| axis | values |\n|---|---|\n";
  std::set<std::string> listed;
  for (const auto& a : axes)
    for (const auto& [k, v] : a) listed.insert(k);
  for (const auto& key : listed) {
    std::vector<std::string> values;
    for (const auto& a : axes)
      if (auto it = a.find(key);
          it != a.end() && std::find(values.begin(), values.end(), it->second) == values.end())
        values.push_back(it->second);
    out << "| " << key << " | " << cell(join(values, ", ")) << " |\n";
  }
  return listed;
}

// A fork sweep's runs and configurations against their parent.
void fork_sweep_sections(std::ostream& out, const db::RunRecord& parent,
                         const std::vector<db::RunRecord>& runs,
                         const std::vector<std::map<std::string, std::string>>& axes,
                         const ReportOptions& options) {
  out << "\n";
  // Seeds of one configuration: the choice on validation is the configuration's.
  const bool by_configuration =
      options.seed_pooled_test && axes.size() == runs.size() && has_seed_group(axes);
  fork_verdicts_section(out, parent, runs, options.paired_test, options.select_by,
                        by_configuration);
  fork_seed_verdicts_section(out, parent, runs, axes, options.seed_pooled_test, options.select_by);
}

// The comparison tables: rows and columns the sweep's first two axis groups (or the asked
// layout), each metric at the runs' ends, then the validation metrics at `budget`.
// The tables' rows and columns: the chosen layout, else the first axis group by the second.
std::pair<std::string, std::string> table_layout(
    const ReportOptions& options, const std::vector<std::vector<std::string>>& groups) {
  if (!options.rows.empty()) return {options.rows, options.cols};
  return {join(groups[0], "+"), groups.size() > 1 ? join(groups[1], "+") : ""};
}

void tables_section(std::ostream& out, const db::Store& store, const std::string& sweep,
                    const SweepRuns& selected, const ReportOptions& options,
                    const std::vector<std::vector<std::string>>& groups,
                    const std::optional<Budget>& budget) {
  out << "\n## Tables\n\n";
  const auto [rows, cols] = table_layout(options, groups);
  TableOptions layout;
  layout.rows = rows;
  layout.cols = cols;
  layout.spread = Spread::Std;
  layout.agg = options.agg;
  layout.select_by = options.select_by;
  layout.bold = cols.empty() ? BoldBest::None : BoldBest::Column;
  for (const auto& metric : options.metrics) {
    const auto table_runs = load_table_runs(store, selected, metric, {rows, cols});
    if (std::none_of(table_runs.begin(), table_runs.end(),
                     [](const TableRun& r) { return r.metric.has_value(); }))
      continue;
    TableOptions o = layout;
    o.metric = metric;
    out << "### " << metric << "\n\n"
        << table_to_markdown(build_comparison_table(table_runs, o)) << "\n";
  }
  budget_tables(out, store, sweep, selected, options.metrics, layout, budget,
                options.at.has_value(), options.render_budgets);
}

std::string sweep_report(const db::Store& store, const std::string& sweep,
                         const SweepRuns& selected, const ReportOptions& options) {
  const std::vector<db::RunRecord>& runs = selected.runs;
  std::ostringstream out;
  std::map<std::string, int> by_status;
  std::set<std::string> revisions;
  std::vector<std::map<std::string, std::string>> axes;
  std::string layout;
  double first = 0, last = 0;
  for (const auto& r : runs) {
    ++by_status[r.status];
    if (!r.git_rev.empty()) revisions.insert(r.git_rev);
    std::map<std::string, std::string> a;
    for (const auto& [k, v] : store.tags(r.id)) {
      if (k.rfind("axis.", 0) == 0) a[k.substr(5)] = v;
      if (k == "sweep.axes") layout = v;
    }
    axes.push_back(a);
    if (first == 0 || r.created_at < first) first = r.created_at;
    last = std::max(last, r.finished_at);
  }
  std::vector<std::string> counts;
  for (const auto& [status, n] : by_status) counts.push_back(std::to_string(n) + " " + status);
  out << "# Sweep `" << sweep << "`\n\n"
      << runs.size() << " runs: " << join(counts, ", ") << ". Queued " << date(first)
      << ", last ended " << date(last) << "; " << builds_text(revisions) << "\n\n";
  if (const auto note = selected.note())  // a part of the sweep never passes for the whole
    out << "**This report is of part of the sweep: " << *note << ".**\n\n";
  const std::optional<db::RunRecord> parent = fork_sweep_note(out, store, runs, options.metrics);

  // The budget the tables are read at too: --at's, else equal compute where costs differ.
  const std::optional<Budget> budget = report_budget(store, runs, options.at);
  const auto groups = axis_groups(axes, layout);
  const std::set<std::string> listed = axes_section(out, axes);
  out << "\n## Runs\n\n";
  runs_table(out, runs, options.metrics);
  if (parent) fork_sweep_sections(out, *parent, runs, axes, options);

  if (!groups.empty()) tables_section(out, store, sweep, selected, options, groups, budget);
  if (!groups.empty() && options.reach) {
    const auto [rows, cols] = table_layout(options, groups);
    reach_section(out, store, sweep, selected, rows, cols, *options.reach, options.render_reach);
  }
  // Every section reads `selected`, the runs counted above: a live sweep's later runs would
  // make the sections disagree with the header and with each other.
  importance_section(out, store, selected, options.render_importance);
  lr_sensitivity_section(out, options, store, selected, listed, axes);
  if (options.at) lr_sensitivity_section(out, options, store, selected, listed, axes, budget);
  lr_transfer_section(out, store, selected, axes);
  if (options.at) lr_transfer_section(out, store, selected, axes, budget);
  samples_section(out, store, runs, options.select_by);
  probes_section(out, options, store, runs);
  if (!options.rows.empty()) {
    layout_figures(out, options, store, sweep, selected, options.rows, options.cols);
    return out.str();
  }
  std::set<std::string> seeds;
  for (const auto& a : axes)
    if (auto it = a.find("train.seed"); it != a.end()) seeds.insert(it->second);
  figures(out, options, runs, store, sweep, groups.empty() ? "" : groups[0].front(),
          seeds.size() > 1, parent, budget);
  return out.str();
}

std::string run_report(const db::Store& store, const db::RunRecord& r,
                       const ReportOptions& options) {
  std::ostringstream out;
  out << "# Run " << r.id << ": `" << r.name << "`\n\n"
      << "Status " << status_text(r) << (r.error.empty() ? "" : " (" + r.error + ")") << ", "
      << r.updates << " updates on " << (r.device.empty() ? "-" : r.device) << ", started "
      << date(r.started_at) << ", ended " << date(r.finished_at) << ", git "
      << (r.git_rev.empty() ? "-" : r.git_rev)
      << ".\n\n## Final metrics\n\n| metric | value |\n|---|---:|\n";
  for (const auto& [name, value] : r.final_metrics)
    out << "| " << name << " | " << report_number(value) << " |\n";
  out << "\n";
  std::vector<db::RunRecord> drawn = {r};
  for (auto& beside : fork_sections(out, store, r, options.metrics, options.paired_test))
    drawn.push_back(std::move(beside));
  figures(out, options, drawn, store, r.name, "");
  samples_section(out, store, {r}, options.select_by);
  probes_section(out, options, store, {r});
  out << "## Config\n\n```yaml\n"
      << r.config_yaml << (r.config_yaml.empty() || r.config_yaml.back() == '\n' ? "" : "\n")
      << "```\n";
  return out.str();
}

}  // namespace

std::vector<std::vector<std::string>> axis_groups(
    const std::vector<std::map<std::string, std::string>>& axes, const std::string& layout,
    const std::string& seed_key) {
  if (!layout.empty()) {
    std::vector<std::vector<std::string>> groups;
    for (const std::string& group : split(layout, ',')) {
      std::vector<std::string> keys;
      for (const std::string& key : split(group, '+'))
        if (key != seed_key) keys.push_back(key);
      if (!keys.empty()) groups.push_back(keys);
    }
    return groups;
  }
  std::vector<std::string> keys;
  for (const auto& a : axes)
    for (const auto& [k, v] : a)
      if (k != seed_key && std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  // a determines b when no two runs share a's value but differ in b's.
  auto determines = [&](const std::string& a, const std::string& b) {
    std::map<std::string, std::string> seen;
    for (const auto& run : axes) {
      auto ia = run.find(a), ib = run.find(b);
      if (ia == run.end() || ib == run.end()) return false;
      auto [it, fresh] = seen.emplace(ia->second, ib->second);
      if (!fresh && it->second != ib->second) return false;
    }
    return true;
  };
  std::vector<std::vector<std::string>> groups;
  for (const auto& key : keys) {
    bool placed = false;
    for (auto& g : groups)
      if (determines(g.front(), key) && determines(key, g.front())) {
        g.push_back(key);
        placed = true;
        break;
      }
    if (!placed) groups.push_back({key});
  }
  return groups;
}

bool schedules_differ(const db::Store& store, const std::vector<db::RunRecord>& runs) {
  if (runs.size() < 2) return false;
  static const std::vector<std::string> kScheduleKeys = {
      "train.schedule",     "train.warmup",         "train.max_updates",
      "train.min_lr_ratio", "train.decay_fraction", "train.decay_shape"};
  std::set<int64_t> ids;
  std::set<std::string> sweeps;
  for (const auto& r : runs) {
    ids.insert(r.id);
    sweeps.insert(r.sweep);
  }
  std::set<std::vector<std::optional<std::string>>> schedules;
  for (const std::string& sweep : sweeps)
    for (const auto& run : store.config_values(sweep, kScheduleKeys))
      if (ids.count(run.run)) schedules.insert(run.values);
  return schedules.size() > 1;
}

std::string write_report(const db::Store& store, const std::string& target,
                         const ReportOptions& options) {
  std::error_code ec;
  fs::create_directories(options.out_dir, ec);
  if (ec)
    throw InputError(options.out_dir, 0, "--out", "cannot create the directory: " + ec.message());
  std::string text;
  if (auto runs = store.list_runs(target); !target.empty() && !runs.empty()) {
    text = sweep_report(store, target,
                        filter_sweep_runs(std::move(runs), target, options.where, "fathom report"),
                        options);
  } else if (const auto run = store.find_run(target)) {
    if (!trim(options.where).empty())
      throw InputError("fathom report", 0, "--where",
                       "'" + target + "' is a run, not a sweep: --where picks a sweep's runs");
    if (options.at)
      throw InputError("fathom report", 0, "--at",
                       "'" + target + "' is a run, not a sweep: --at compares a sweep's runs");
    text = run_report(store, *run, options);
  } else {
    throw InputError(store.path(), 0, "SWEEP|RUN", "no sweep or run named '" + target + "'");
  }
  const std::string path = (fs::path(options.out_dir) / "report.md").string();
  std::ofstream file(path, std::ios::binary);
  file << text;
  if (!file.flush()) throw InputError(path, 0, "--out", "cannot write the report");
  return path;
}

}  // namespace fathom::experiments
