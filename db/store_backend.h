#pragma once
// What a storage engine implements for the run store. `Store` (store.h) checks arguments,
// statuses and the open mode once and forwards here, so a backend holds only its SQL.
// A backend is one file plus one line in db/store_backends.cpp (the URL scheme it serves).
//
// Every write is one transaction: all of it or nothing. A backend whose server can drop the
// connection reconnects and retries the transaction (writes are idempotent where that matters:
// metric rows are keyed by (run, name, step)). Errors: a missing run -> std::invalid_argument;
// the user's store being unusable (unreachable, refused, foreign, too new) -> InputError naming
// the store; anything else -> std::runtime_error naming the store. Never a password.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "db/records.h"

namespace fathom::db {

class StoreBackend {
 public:
  virtual ~StoreBackend() = default;

  virtual int schema_version() = 0;

  // ---- writes ----
  // A Fence is the writer's lease generation (db/lease.h): a fenced write first checks, in
  // its own transaction, that the run is running under that generation, else throws
  // LeaseLost and writes nothing. nullopt: an unfenced write (tools, tests, imports).
  using Fence = std::optional<int64_t>;

  virtual int64_t create_run(const NewRun& run, double now) = 0;
  // Every run and its tags in one transaction; their ids in order.
  virtual std::vector<int64_t> create_runs(const std::vector<NewTaggedRun>& runs, double now) = 0;
  // Takes the run for a new holder: running, host/device, started_at if unset, a new lease
  // generation (returned).
  virtual int64_t take_run(int64_t run, const std::string& host, const std::string& device,
                           double now) = 0;
  // The holder records where it runs (host, device, heartbeat_at = now).
  virtual void mark_running(int64_t run, const std::string& host, const std::string& device,
                            double now, int64_t lease) = 0;
  virtual void finish_run(int64_t run, const std::string& status, const std::string& error,
                          std::optional<int64_t> diverged_step, double now, Fence fence) = 0;
  virtual void heartbeat(int64_t run, int64_t updates, double now, Fence fence) = 0;
  // heartbeat_at = now for the holder of a running run.
  virtual void touch_heartbeat(int64_t run, double now, int64_t lease) = 0;
  // queued or running -> cancelled (error = reason, finished_at = now); false when it was not.
  virtual bool cancel_run(int64_t run, const std::string& reason, double now) = 0;
  // One of `from` (or, fenced, running under the fence) -> queued (error = reason, finished_at
  // cleared, a new lease generation) in one statement; false when the run had another status
  // and was left as it was. A fenced requeue throws LeaseLost instead.
  virtual bool requeue_run(int64_t run, const std::string& reason, double now,
                           const std::vector<std::string>& from, Fence fence) = 0;
  virtual void set_final_metric(int64_t run, const std::string& name, double value,
                                Fence fence) = 0;
  // Each artifact replaces the run's artifact of its kind, and the rows of `removed` kinds go
  // (a kind in both is replaced); all in one transaction. Unfenced, a write with `removed` kinds
  // to a running run is refused (InputError, nothing written): its holder may be reading them.
  virtual void add_artifacts(int64_t run, const std::vector<Artifact>& artifacts,
                             const std::vector<std::string>& removed, double now, Fence fence) = 0;
  virtual void set_tag(int64_t run, const std::string& key, const std::string& value,
                       Fence fence) = 0;
  virtual void write_metrics(int64_t run, const std::vector<MetricRow>& rows, Fence fence) = 0;
  // Drops metric rows and probe points with step > `step`.
  virtual void delete_metrics_after(int64_t run, int64_t step, Fence fence) = 0;
  // Probe points (and each probe's layout, replaced) in one transaction; a repeated
  // (probe, step) replaces the old point.
  virtual void write_probes(int64_t run, const std::vector<ProbeRow>& rows, Fence fence) = 0;
  // The config the run trains with, when a resume changed it (train.max_updates).
  virtual void set_config(int64_t run, const std::string& config_yaml,
                          const std::string& config_json, Fence fence) = 0;
  // Refuses a running run (InputError) under the same lock that deletes.
  virtual void delete_run(int64_t run) = 0;
  virtual int64_t add_analysis(const NewAnalysis& analysis, double now) = 0;
  // Atomically moves the oldest queued run of `sweep` (not in `skip`) to running with a new
  // lease generation; nullopt when none is queued.
  virtual std::optional<RunRecord> claim_next_run(const std::string& sweep, const std::string& host,
                                                  const std::string& device, double now,
                                                  const std::vector<int64_t>& skip) = 0;
  // `fathom db copy`: writes a run (its id kept) and everything about it in one transaction.
  virtual void import_run(const RunExport& run) = 0;
  virtual void import_analysis(const AnalysisRecord& analysis) = 0;

  // ---- reads ----
  virtual std::vector<Artifact> artifacts(int64_t run) = 0;
  virtual std::map<std::string, std::string> tags(int64_t run) = 0;
  // Store::tagged_runs.
  virtual std::map<int64_t, std::string> tagged_runs(const std::string& key) = 0;
  // Store::listing_tags.
  virtual std::map<int64_t, std::map<std::string, std::string>> listing_tags(
      const std::vector<int64_t>& runs) = 0;
  // Store::list_run_states_with_metrics, Store::runs_by_id.
  virtual std::vector<RunRecord> list_run_states_with_metrics() = 0;
  virtual std::vector<RunRecord> runs_by_id(const std::vector<int64_t>& ids) = 0;
  // Store::list_runs; the words are checked there.
  virtual std::vector<RunRecord> list_runs(const std::string& sweep_filter,
                                           const std::vector<std::string>& config_contains) = 0;
  // The runs of `sweep` as Store::list_run_states reads them.
  virtual std::vector<RunRecord> list_run_states(const std::string& sweep) = 0;
  // Store::config_values, each key split at its dots (checked there).
  virtual std::vector<RunConfigValues> config_values(
      const std::string& sweep, const std::vector<std::vector<std::string>>& keys) = 0;
  virtual std::optional<RunRecord> run_by_id(int64_t id) = 0;
  virtual std::optional<RunRecord> latest_run_named(const std::string& name) = 0;
  virtual std::vector<MetricPoint> metric_points(int64_t run, const std::string& name,
                                                 int64_t after_step) = 0;
  virtual int64_t last_metric_step(int64_t run, const std::string& name) = 0;
  // Each run's best finite point of `name`: the lowest value (highest when `higher`), the
  // earliest step among equals. Runs without a finite point of it are absent.
  virtual std::map<int64_t, MetricPoint> best_points(const std::vector<int64_t>& runs,
                                                     const std::string& name, bool higher) = 0;
  virtual std::vector<std::string> metric_names(int64_t run) = 0;
  virtual std::vector<MetricRow> metric_rows(int64_t run) = 0;
  virtual std::vector<std::string> probe_names(int64_t run) = 0;  // sorted
  // Points with step > after_step, by step; no positions when the run has no such probe.
  virtual ProbeSeries probe_series(int64_t run, const std::string& probe, int64_t after_step) = 0;
  virtual std::vector<ProbeRow> probe_rows(int64_t run) = 0;  // every point, by (probe, step)
  virtual std::vector<AnalysisRecord> list_analyses(std::optional<int64_t> run,
                                                    const std::string& kind) = 0;
  virtual std::optional<AnalysisRecord> get_analysis(int64_t id) = 0;
  virtual StoreCounts counts() = 0;
  virtual int64_t last_analysis_id() = 0;
  // A whole dashboard poll, one reply per request in order. The default asks curve by curve --
  // one statement each where new points came, whose last is the curve's end; a second, for its
  // end, only where none did -- and a server backend answers in one round trip.
  virtual std::vector<CurveReply> poll_curves(const std::vector<CurveRequest>& requests) {
    std::vector<CurveReply> out;
    for (const auto& r : requests) {
      CurveReply reply;
      reply.points = metric_points(r.run, r.name, r.after_step);
      if (!reply.points.empty())
        reply.last_step = reply.points.back().step;  // the points are every step past after_step
      else if (r.after_step >= 0)
        reply.last_step = last_metric_step(r.run, r.name);  // -1 asked for all: there is none
      out.push_back(std::move(reply));
    }
    return out;
  }
  // Why the store cannot be read right now without waiting (another process's lock, a lost
  // server), answered within about a second; nullopt when it can.
  virtual std::optional<std::string> busy_reason() = 0;
  // Store::write_lock_holder. A server backend has none to report: PostgreSQL ends a session
  // idle inside a transaction itself (idle_in_transaction_session_timeout, pg_connection.cpp).
  virtual std::optional<long long> write_lock_holder() { return std::nullopt; }
  // True when this connection may no longer see what others commit and must be opened again
  // (SQLite: its files were replaced under it, sqlite_file_identity.h). A server connection
  // is never stale this way.
  virtual bool connection_stale() { return false; }
};

}  // namespace fathom::db
