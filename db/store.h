#pragma once
// The run store: one SQLite file holding every run, its config, metric curves, final metrics
// and artifacts (schema: docs/schema.md). Many processes may write at once -- sweep workers,
// the trainer -- while the GUI reads; writers queue on the write lock instead of failing.
//
// A Store is one connection, for use from one thread at a time. Times are unix seconds.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "db/sqlite_handle.h"

namespace fathom::db {

enum class OpenMode { ReadWrite, ReadOnly };

struct NewRun {
  std::string name, sweep, config_json, config_yaml, host, device, git_rev;
  std::string status = "queued";
};

struct RunRecord {
  int64_t id = 0;
  std::string name, sweep, config_json, config_yaml, status, error, host, device, git_rev;
  std::optional<int64_t> diverged_step;
  int64_t updates = 0;
  // 0 where the event has not happened (e.g. started_at of a queued run).
  double created_at = 0, started_at = 0, finished_at = 0, heartbeat_at = 0;
  std::map<std::string, double> final_metrics;  // NaN where stored as NULL
};

struct MetricPoint {
  int64_t step;
  double value;  // NaN where stored as NULL
  double wall_time;
};

struct Artifact {
  std::string kind, path;
  std::optional<int64_t> step;
};

// One row of the `analyses` table (results of `fathom analyze`; docs/analyses.md).
struct NewAnalysis {
  std::optional<int64_t> run_id;  // nullopt: a config at initialization
  std::string kind;               // beta, output-shift, grad-norms, ln-scale, ...
  std::string checkpoint;         // best | last | init; "" (stored NULL) for configs
  std::string params_json, result_json;
  double elapsed_s = 0;
};

struct AnalysisRecord {
  int64_t id = 0;
  std::optional<int64_t> run_id;
  std::string kind, checkpoint, params_json, result_json;
  double created_at = 0, elapsed_s = 0;
};

// One metric row for Store::write_metrics: step, name, value, wall_time.
using MetricRow = std::tuple<int64_t, std::string, double, double>;

// True for the values runs.status may take; terminal ones are accepted by finish_run.
bool is_valid_status(const std::string& status);
bool is_terminal_status(const std::string& status);

class Store {
 public:
  // ReadWrite creates the file (and parent directories) if missing and migrates it to the
  // latest schema. ReadOnly never modifies anything and requires an up-to-date store.
  // A missing, unreadable, foreign, corrupt or too-new file -> fathom::InputError.
  static Store open(const std::string& path, OpenMode mode = OpenMode::ReadWrite);

  Store(Store&&) noexcept = default;
  Store& operator=(Store&&) noexcept = default;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  const std::string& path() const { return db_.path(); }
  OpenMode mode() const { return mode_; }
  int schema_version() const;
  static int latest_schema_version();

  // ---- writes (each one BEGIN IMMEDIATE transaction) ----
  int64_t create_run(const NewRun& run);
  void mark_running(int64_t run, const std::string& host, const std::string& device);
  // status must be terminal: finished, diverged, failed, crashed or cancelled.
  void finish_run(int64_t run, const std::string& status, const std::string& error = "",
                  std::optional<int64_t> diverged_step = std::nullopt);
  void heartbeat(int64_t run, int64_t updates);
  void set_final_metric(int64_t run, const std::string& name, double value);
  // Replaces any earlier artifact of the same kind for this run.
  void add_artifact(int64_t run, const std::string& kind, const std::string& path,
                    std::optional<int64_t> step);
  void set_tag(int64_t run, const std::string& key, const std::string& value);
  // Rows as (step, name, value, wall_time); a repeated (name, step) replaces the old point.
  void write_metrics(int64_t run, const std::vector<MetricRow>& rows);
  // Drops points with step > `step` (resuming from a checkpoint taken at `step`).
  void delete_metrics_after(int64_t run, int64_t step);
  // Removes a run and every row recorded about it (metrics, final metrics, tags, artifacts
  // rows, analyses) in one transaction; other runs are untouched. Files on disk stay (the
  // caller removes the run's artifact directory). A running run is refused with an
  // InputError (cancel it first), an unknown id with std::invalid_argument.
  void delete_run(int64_t run);
  // Records an analysis result; returns its id. (store_analyses.cpp)
  int64_t add_analysis(const NewAnalysis& analysis);

  // ---- reads ----
  std::vector<Artifact> artifacts(int64_t run) const;  // ordered by kind
  std::map<std::string, std::string> tags(int64_t run) const;
  // Oldest first; "" means all runs.
  std::vector<RunRecord> list_runs(const std::string& sweep_filter = "") const;
  // A numeric id, else the latest run with that name.
  std::optional<RunRecord> find_run(const std::string& id_or_name) const;
  std::vector<MetricPoint> metric_series(int64_t run, const std::string& name) const;  // by step
  std::vector<std::string> metric_names(int64_t run) const;                            // sorted
  // Oldest first; filters: a run (nullopt: all rows, configs included), a kind ("" = all).
  std::vector<AnalysisRecord> list_analyses(std::optional<int64_t> run = std::nullopt,
                                            const std::string& kind = "") const;
  std::optional<AnalysisRecord> get_analysis(int64_t id) const;

 private:
  Store(Connection db, OpenMode mode) : db_(std::move(db)), mode_(mode) {}
  // Runs `body` inside one BEGIN IMMEDIATE transaction.
  template <typename F>
  void write(const char* what, F body);
  void require_run(int64_t run) const;  // after an UPDATE: throws if it touched no row
  // Reads every row of a prepared SELECT of the run columns, plus each run's final metrics.
  std::vector<RunRecord> collect_runs(Statement& select) const;

  Connection db_;
  OpenMode mode_;
};

}  // namespace fathom::db
