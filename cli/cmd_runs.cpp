// `fathom runs [--sweep NAME] [--status S] [--where EXPR] [--sort FIELD [--desc]] [--limit N]
// [--columns F,G] [--best]`: the runs in the store, oldest first unless sorted, as an aligned
// table or (--json) a JSON array; --where, --sort and --columns name fields as the app's runs
// filter does (experiments/run_selection.h). --best adds, beside each key metric with a curve,
// its best point over training (lowest loss/ppl, highest BLEU) and the update it was logged at.
// A run train.patience ended shows as "finished (early stop)" (--json: its tag's text).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/util/error.h"
#include "base/util/strings.h"
#include "cli/commands.h"
#include "db/early_stop_tag.h"
#include "db/metric_names.h"
#include "db/metric_presentation.h"
#include "db/run_json.h"
#include "db/run_status.h"
#include "db/store.h"
#include "experiments/run_control.h"
#include "experiments/run_selection.h"
#include "experiments/stored_run_selection.h"

namespace fathom::cli {
namespace {

struct RunsOptions {
  std::string sweep;
  std::string status;
  experiments::RunSelection selection;
  std::string columns;  // --columns: selection.columns, comma-separated
  bool best = false;
};

// Final metrics worth a column, in this order, when at least one listed run has them (or,
// with --best, a curve of them).
const std::string* const kKeyMetrics[] = {&db::metric::kValidPpl, &db::metric::kValidBpb,
                                          &db::metric::kValidBleu, &db::metric::kTestBleu};

std::string local_minute(double unix_seconds) {
  if (unix_seconds <= 0) return "-";
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &tm);
  return buf;
}

// The early_stop tags of runs train.patience ended (not those trained past the stop since).
std::map<int64_t, std::string> early_stops(const db::Store& store) {
  std::map<int64_t, std::string> out;
  for (auto& [run, why] : store.tagged_runs(db::kEarlyStopTag))
    if (db::stop_ends_the_run(why)) out[run] = std::move(why);
  return out;
}

std::string status_label(const db::RunRecord& run, double now, bool stopped_early) {
  if (run.status == db::status::kDiverged && run.diverged_step)
    return "diverged@" + std::to_string(*run.diverged_step);
  // A running run with a stale heartbeat shows as crashed.
  const std::string shown = experiments::shown_status(run, now);
  return stopped_early && shown == db::status::kFinished ? shown + " (early stop)" : shown;
}

std::string format_value(double value) {
  if (std::isnan(value)) return "nan";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", value);
  return buf;
}

std::string format_metric(const std::map<std::string, double>& metrics, const std::string& name) {
  auto it = metrics.find(name);
  return it == metrics.end() ? "-" : format_value(it->second);
}

// "12.34@400": the best value and the update it was logged at.
std::string format_best(const std::map<int64_t, db::MetricPoint>& best, int64_t run) {
  auto it = best.find(run);
  return it == best.end() ? "-"
                          : format_value(it->second.value) + "@" + std::to_string(it->second.step);
}

// For each key metric with a better direction, every listed run's best point; metrics no
// listed run has a curve of are left out.
using BestPoints = std::map<std::string, std::map<int64_t, db::MetricPoint>>;  // by metric, run

BestPoints best_points(const db::Store& store, const std::vector<db::RunRecord>& runs) {
  std::vector<int64_t> ids;
  for (const auto& run : runs) ids.push_back(run.id);
  BestPoints out;
  for (const std::string* name : kKeyMetrics)
    if (auto higher = db::metric::higher_is_better(*name))
      if (auto best = store.best_points(ids, *name, *higher); !best.empty())
        out[*name] = std::move(best);
  return out;
}

// A sweep's runs are named "<sweep>/norm=post,seed=1": the SWEEP column says the first part, so
// NAME shows the rest (--json keeps the whole name).
std::string shown_name(const db::RunRecord& run) {
  const std::string prefix = run.sweep + "/";
  return !run.sweep.empty() && run.name.size() > prefix.size() &&
                 run.name.compare(0, prefix.size(), prefix) == 0
             ? run.name.substr(prefix.size())
             : run.name;
}

// Prints rows with each column padded to its widest cell; `right[i]` right-aligns column i.
void print_cells(const std::vector<std::vector<std::string>>& rows,
                 const std::vector<bool>& right) {
  std::vector<size_t> width(rows.front().size(), 0);
  for (const auto& row : rows)
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      const std::string pad(width[i] - row[i].size(), ' ');
      line += right[i] ? pad + row[i] : row[i] + (i + 1 < row.size() ? pad : "");
      if (i + 1 < row.size()) line += "  ";
    }
    std::cout << line << "\n";
  }
}

// What a listing shows: the runs kept, in order, and what is read beside them.
struct Listing {
  std::vector<experiments::QueriedRun> runs;
  std::vector<std::string> columns;  // --columns
  bool best_asked = false;           // --best
  BestPoints best;
  std::map<int64_t, std::string> early_stop;  // runs train.patience ended, and why
  double now = 0;
};

void print_json(const Listing& l) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& [run, fields] : l.runs) {
    out.push_back(db::run_to_json(run));
    if (auto it = l.early_stop.find(run.id); it != l.early_stop.end())
      out.back()["early_stop"] = it->second;
    if (!l.best_asked) continue;
    auto& bests = out.back()["best_metrics"] = nlohmann::ordered_json::object();
    for (const auto& [name, points] : l.best)
      if (auto it = points.find(run.id); it != points.end())
        bests[name] = {{"value", it->second.value}, {"step", it->second.step}};
  }
  std::cout << out.dump(2) << "\n";
}

void print_table(const Listing& l) {
  bool any_sweep = false;
  for (const auto& r : l.runs) any_sweep = any_sweep || !r.run.sweep.empty();
  std::vector<std::string> metrics;
  for (const std::string* name : kKeyMetrics)
    for (const auto& r : l.runs)
      if (r.run.final_metrics.count(*name) || l.best.count(*name)) {
        metrics.push_back(*name);
        break;
      }

  std::vector<std::vector<std::string>> rows;
  std::vector<bool> right;
  auto header = [&](const std::string& title, bool align_right) {
    if (rows.empty()) rows.emplace_back();
    rows[0].push_back(title);
    right.push_back(align_right);
  };
  header("ID", true);
  header("NAME", false);
  if (any_sweep) header("SWEEP", false);
  header("STATUS", false);
  header("UPDATES", true);
  for (const auto& f : l.columns) header(f, false);
  for (const auto& m : metrics) {
    header(m, true);
    if (l.best.count(m)) header("best " + m, true);
  }
  header("CREATED", false);

  for (const auto& [run, fields] : l.runs) {
    std::vector<std::string> row = {std::to_string(run.id), shown_name(run)};
    if (any_sweep) row.push_back(run.sweep.empty() ? "-" : run.sweep);
    row.push_back(status_label(run, l.now, l.early_stop.count(run.id) > 0));
    row.push_back(std::to_string(run.updates));
    for (const auto& f : l.columns) {
      const auto value = fields(f);
      row.push_back(value ? value->text : "-");
    }
    for (const auto& m : metrics) {
      row.push_back(format_metric(run.final_metrics, m));
      if (auto it = l.best.find(m); it != l.best.end())
        row.push_back(format_best(it->second, run.id));
    }
    row.push_back(local_minute(run.created_at));
    rows.push_back(std::move(row));
  }
  print_cells(rows, right);
}

void list_runs(const GlobalOptions& global, const RunsOptions& opts) {
  auto store = db::Store::open(resolve_db_path(global), db::OpenMode::ReadOnly);
  Listing l;
  l.now = db::unix_now();
  experiments::RunSelection selection = opts.selection;
  for (const auto& f : split(opts.columns, ','))
    if (!trim(f).empty()) selection.columns.push_back(trim(f));
  experiments::StoredSelection selected = experiments::select_stored_runs(
      store, {opts.sweep, opts.status}, selection, l.now, "fathom runs");
  l.runs = std::move(selected.runs);
  const size_t before_where = selected.listed;
  l.columns = selection.columns;
  l.best_asked = opts.best;
  if (opts.best) {
    std::vector<db::RunRecord> runs;
    for (const auto& r : l.runs) runs.push_back(r.run);
    l.best = best_points(store, runs);
  }
  l.early_stop = early_stops(store);

  if (global.json) return print_json(l);
  if (!l.runs.empty()) return print_table(l);
  if (before_where > 0)
    std::cout << "no run of the " << before_where << " listed matches --where '"
              << trim(opts.selection.where) << "'\n";
  else
    std::cout << "no runs in " << store.path() << "\n";
}

}  // namespace

void add_runs_command(CLI::App& app, GlobalOptions& options) {
  auto opts = std::make_shared<RunsOptions>();
  CLI::App* cmd = app.add_subcommand("runs", "List the runs in the store");
  cmd->add_option("--sweep", opts->sweep, "only runs of this sweep");
  cmd->add_option("--status", opts->status, "only runs with this status")
      ->check(CLI::IsMember(db::status::all()));
  cmd->add_option("--where", opts->selection.where,
                  "only the runs this filter keeps, e.g. \"norm=pre and valid_ppl<30\" (the "
                  "desktop app's runs filter: run fields, final metrics, config keys)");
  cmd->add_option("--sort", opts->selection.sort,
                  "order by this field (valid_ppl, train.lr, updates, ...), smallest first; runs "
                  "without it last");
  cmd->add_flag("--desc", opts->selection.descending, "with --sort: largest first");
  cmd->add_option("--limit", opts->selection.limit, "only the first N runs (after --sort)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--columns", opts->columns,
                  "fields to show after UPDATES, comma-separated, e.g. norm,train.lr,seed "
                  "(config keys by their last part where unambiguous)");
  cmd->add_flag(
      "--best", opts->best,
      "beside each key metric, its best point over training and its update, e.g. 12.34@400 "
      "(lowest perplexity, highest BLEU; --json: best_metrics)");
  cmd->callback([&options, opts] { list_runs(options, *opts); });
}

}  // namespace fathom::cli
