#pragma once
// The run store: every run, its config, metric curves, final metrics, artifacts, tags and
// analysis results (schema: docs/schema.md). One interface over several backends, chosen by
// the location's URL (db/store_url.h): a SQLite file (the embedded default) or a PostgreSQL
// database (a lab's server). Many processes may write at once -- sweep workers on several
// machines, the trainer -- while the desktop app reads.
//
// A Store is one connection, for use from one thread at a time. Times are unix seconds.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "db/lease.h"
#include "db/records.h"
#include "db/run_status.h"
#include "db/store_unreachable.h"
#include "db/store_url.h"

namespace fathom::db {

class StoreBackend;

// True for the values runs.status may take; terminal ones are accepted by finish_run.
bool is_valid_status(const std::string& status);
bool is_terminal_status(const std::string& status);

class Store {
 public:
  // `location`: a file path or URL (store_url.h). ReadWrite creates the store if missing
  // (a SQLite file and its parent directories; the schema in an empty PostgreSQL database)
  // and migrates it to the latest schema. ReadOnly never modifies anything and requires an
  // up-to-date store. A missing, unreachable, refused, foreign, corrupt or too-new store ->
  // fathom::InputError naming the location (never its password).
  static Store open(const std::string& location, OpenMode mode = OpenMode::ReadWrite);
  // Before open(), which may wait up to a minute on another process's lock: why opening would
  // wait right now, or nullopt (also for a location that open() will reject with its reason).
  static std::optional<std::string> busy_before_open(const std::string& location);

  Store(Store&&) noexcept;
  Store& operator=(Store&&) noexcept;
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // For messages: the file path, or the URL with its password replaced by "***".
  const std::string& path() const { return url_.shown; }
  // What to open the same store again with (another thread, a worker process). May hold a
  // password: pass it through the environment, never argv or a message.
  const std::string& location() const { return location_; }
  const StoreUrl& url() const { return url_; }
  bool is_file() const { return url_.is_file(); }
  OpenMode mode() const { return mode_; }
  int schema_version() const;
  static int latest_schema_version();

  // ---- writes (each one transaction) ----
  int64_t create_run(const NewRun& run);
  // Records every run with its tags in one transaction (all or none), as create_run and
  // set_tag one by one would, with one created_at; returns their ids in order. Queueing a
  // sweep: one commit per batch instead of one per run and per tag.
  std::vector<int64_t> create_runs(const std::vector<NewTaggedRun>& runs);
  // Takes the run for this process (`fathom train`, a resume): running, with a new lease
  // generation that fences off every earlier holder (db/lease.h).
  Lease mark_running(int64_t run, const std::string& host, const std::string& device);
  // status must be terminal: finished, diverged, failed, crashed or cancelled.
  void finish_run(int64_t run, const std::string& status, const std::string& error = "",
                  std::optional<int64_t> diverged_step = std::nullopt);
  void heartbeat(int64_t run, int64_t updates);
  // A preempted, interrupted or (with `from`) ended run goes back to the queue (error = reason,
  // a new lease generation) so the next claim_next_run continues it from its checkpoint. By
  // default from running or crashed; false, and nothing changed, when it had another status
  // (cancelled meanwhile).
  bool requeue_run(int64_t run, const std::string& reason,
                   const std::vector<std::string>& from = {status::kRunning, status::kCrashed});
  // queued or running -> cancelled (error = reason) in one statement; false, and nothing
  // changed, when the run had already ended -- a worker that finished it between a caller's
  // look and this write keeps its result.
  bool cancel_run(int64_t run, const std::string& reason);
  void set_final_metric(int64_t run, const std::string& name, double value);
  // Replaces any earlier artifact of the same kind for this run.
  void add_artifact(int64_t run, const std::string& kind, const std::string& path,
                    std::optional<int64_t> step);
  // Drops the run's artifact rows of these kinds in one transaction (`fathom prune`; the
  // caller removes the files after). A running run is refused with an InputError.
  void remove_artifacts(int64_t run, const std::vector<std::string>& kinds);
  // Points the run's rows of these kinds at new files (`fathom prune --model-only`), in one
  // transaction; a running run is refused with an InputError, as above.
  void replace_artifacts(int64_t run, const std::vector<Artifact>& artifacts);
  void set_tag(int64_t run, const std::string& key, const std::string& value);
  // Rows as (step, name, value, wall_time); a repeated (name, step) replaces the old point,
  // so writing the same rows twice (a retry) leaves one copy.
  void write_metrics(int64_t run, const std::vector<MetricRow>& rows);
  void write_probes(int64_t run, const std::vector<ProbeRow>& rows);
  // Drops points with step > `step` (resuming from a checkpoint taken at `step`).
  void delete_metrics_after(int64_t run, int64_t step);
  // Removes a run and every row recorded about it (metrics, final metrics, tags, artifacts
  // rows, analyses) in one transaction; other runs are untouched. Files on disk stay (the
  // caller removes the run's artifact directory). A running run is refused with an
  // InputError (cancel it first), an unknown id with std::invalid_argument.
  void delete_run(int64_t run);
  // Records an analysis result; returns its id.
  int64_t add_analysis(const NewAnalysis& analysis);
  // Atomically takes the oldest queued run of `sweep` (except those in `skip`), marks it
  // running on `host` with a new lease generation (RunRecord::lease): across processes and
  // machines, each queued run is claimed by exactly one caller. nullopt when none is queued.
  std::optional<RunRecord> claim_next_run(const std::string& sweep, const std::string& host,
                                          const std::string& device,
                                          const std::vector<int64_t>& skip = {});

  // ---- the holder's writes (fenced, db/lease.h) ----
  // Each is accepted only while `lease` is the run's current generation and the run is
  // running, checked in the write's own transaction; otherwise LeaseLost and nothing written.
  // A worker, `fathom train` and whoever acts for a lost worker (marking it crashed,
  // requeueing it) write through these.
  void mark_running(const Lease& lease, const std::string& host, const std::string& device);
  void finish_run(const Lease& lease, const std::string& status, const std::string& error = "",
                  std::optional<int64_t> diverged_step = std::nullopt);
  void heartbeat(const Lease& lease, int64_t updates);
  // "Still alive" without progress (a worker's heartbeat thread, during long evaluations).
  void touch_heartbeat(const Lease& lease);
  // running -> queued with a new generation: this holder gives the run back.
  void requeue_run(const Lease& lease, const std::string& reason);
  void set_final_metric(const Lease& lease, const std::string& name, double value);
  // All in one transaction: e.g. the new resume point and the one before it; the rows of
  // `removed` kinds go in the same transaction (a kept checkpoint train.keep_checkpoints
  // no longer keeps).
  void add_artifacts(const Lease& lease, const std::vector<Artifact>& artifacts,
                     const std::vector<std::string>& removed = {});
  void set_tag(const Lease& lease, const std::string& key, const std::string& value);
  void write_metrics(const Lease& lease, const std::vector<MetricRow>& rows);
  // Also drops the probe points after `step`.
  void delete_metrics_after(const Lease& lease, int64_t step);
  // Probe points of the training probes (core/train/probes.h), each probe's layout with them.
  void write_probes(const Lease& lease, const std::vector<ProbeRow>& rows);
  // The run's stored config, when a resume changed it (e.g. more updates).
  void set_config(const Lease& lease, const std::string& config_yaml,
                  const std::string& config_json);

  // `fathom db copy`: one run with everything about it (its id kept), one transaction.
  void import_run(const RunExport& run);
  void import_analysis(const AnalysisRecord& analysis);

  // ---- reads ----
  std::vector<Artifact> artifacts(int64_t run) const;  // ordered by kind
  std::map<std::string, std::string> tags(int64_t run) const;
  // Every run that has the tag `key`, with its value: one read for a listing of thousands of
  // runs (`fathom runs`) instead of one per run.
  std::map<int64_t, std::string> tagged_runs(const std::string& key) const;
  // Each of `runs`' tags but its stored validation samples (db/valid_samples.h: the large
  // ones, read with tags(run)), in one read: what a listing shows of its runs -- the app's
  // poll of a just-queued sweep of 4,000 runs was 3,000 round trips to a lab's server. Runs
  // without such tags are absent.
  std::map<int64_t, std::map<std::string, std::string>> listing_tags(
      const std::vector<int64_t>& runs) const;
  // Oldest first; "" means all runs. With `config_contains`, only the runs whose config text
  // holds each of those words, ASCII case ignored: what `fathom runs --where norm=pre` reads
  // of a lab's 100,000 runs before parsing any config (experiments::RunQuery::config_words).
  // Words are of letters, digits and _ . + - " only (std::invalid_argument otherwise).
  std::vector<RunRecord> list_runs(const std::string& sweep_filter = "",
                                   const std::vector<std::string>& config_contains = {}) const;
  // Every run's state as list_run_states(sweep) reads it (from the index runs_state: no row
  // with its config is read), oldest first, with its final metrics -- which an evaluation may
  // add to an ended run. A listing's poll that keeps what it read (db/run_listing.h): the rows
  // of a lab's 16,000 runs are ~70 MB of configs a read.
  std::vector<RunRecord> list_run_states_with_metrics() const;
  // The runs `ids` as list_runs reads them, oldest first; ids not in the store are left out.
  std::vector<RunRecord> runs_by_id(const std::vector<int64_t>& ids) const;
  // What a poll of a sweep needs (the scheduler's, each second), oldest first, read from one
  // index (runs_state): each run's id, name, sweep, status, host, device, updates,
  // heartbeat_at and lease. Every other field is left empty (0, "", nullopt, no final
  // metrics): read a run with find_run for its config or error.
  std::vector<RunRecord> list_run_states(const std::string& sweep) const;
  // Oldest first: the values at `keys` ("train.max_updates", "notify") of each run's config in
  // `sweep`, read by the engine's JSON functions (a scheduler's start over 100k runs parsed
  // every config in C++: seconds). A scalar reads as its text, an object as JSON text.
  // Throws std::invalid_argument for a key outside [a-z0-9_.].
  std::vector<RunConfigValues> config_values(const std::string& sweep,
                                             const std::vector<std::string>& keys) const;
  // A numeric id, else the latest run with that name.
  std::optional<RunRecord> find_run(const std::string& id_or_name) const;
  std::vector<MetricPoint> metric_series(int64_t run, const std::string& name) const;  // by step
  // The dashboard's poll: points with step > after_step, by step (an index range scan).
  std::vector<MetricPoint> metric_points_after(int64_t run, const std::string& name,
                                               int64_t after_step) const;
  // The last step of (run, name), -1 when it has no points.
  int64_t last_metric_step(int64_t run, const std::string& name) const;
  // Each run's best finite point of `name` (lowest, or highest when `higher`; the earliest
  // step among equals), read by the store: runs without one are absent.
  std::map<int64_t, MetricPoint> best_points(const std::vector<int64_t>& runs,
                                             const std::string& name, bool higher) const;
  // The dashboard's whole poll at once: for each curve, where it ends and its points after
  // the request's step (one snapshot; one round trip on a server store).
  std::vector<CurveReply> poll_curves(const std::vector<CurveRequest>& requests) const;
  std::vector<std::string> metric_names(int64_t run) const;  // sorted
  // Every metric row of a run, by (name, step).
  std::vector<MetricRow> metric_rows(int64_t run) const;
  // The probes recorded for a run (sorted), and one of them over training: points with
  // step > after_step, by step (no positions when the run has no such probe).
  std::vector<std::string> probe_names(int64_t run) const;
  ProbeSeries probe_series(int64_t run, const std::string& probe, int64_t after_step = -1) const;
  RunExport export_run(int64_t run) const;
  // Oldest first; filters: a run (nullopt: all rows, configs included), a kind ("" = all).
  std::vector<AnalysisRecord> list_analyses(std::optional<int64_t> run = std::nullopt,
                                            const std::string& kind = "") const;
  std::optional<AnalysisRecord> get_analysis(int64_t id) const;
  StoreCounts counts() const;
  // The newest analysis row's id, 0 when there is none: a cheap "anything new?" for a poll.
  int64_t last_analysis_id() const;
  // A cheap health probe for a window that must not freeze: why reading would wait right now
  // (another process's lock, a lost server), or nullopt when it would not.
  std::optional<std::string> busy_reason() const;
  // The process on this host that holds the store's write lock right now, which every other
  // writer waits on (SQLite, db/sqlite_write_lock.h); nullopt when none does or the store has
  // no such lock. Another process's pid: this process's own transactions are not reported.
  std::optional<long long> write_lock_holder() const;
  // Whether this connection may have stopped seeing what others commit: a SQLite store's
  // files were deleted or replaced under it -- after this process lost its file locks, which
  // closing any descriptor of the store file does (db/sqlite_file_identity.h) -- or the file
  // itself was replaced. A long-lived reader (the desktop app) asks before each poll.
  bool connection_stale() const;
  // A fresh connection to the same location and mode; the old one is closed first. Throws as
  // open() does, and then this Store is left unusable until a reopen succeeds.
  void reopen();
  // reopen() when connection_stale(); true when it did.
  bool reopen_if_stale();

 private:
  Store(std::string location, StoreUrl url, OpenMode mode, std::unique_ptr<StoreBackend> backend);
  void require_writable(const char* what) const;
  // The open connection; throws when a reopen() failed and left none.
  StoreBackend* backend() const;

  std::string location_;
  StoreUrl url_;
  OpenMode mode_;
  std::unique_ptr<StoreBackend> backend_;
};

}  // namespace fathom::db
