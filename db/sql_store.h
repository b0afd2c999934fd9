#pragma once
// The run store's contract written once: every statement, the "update, else say why" checks,
// fencing, claims, imports and reads, over a SqlSession (db/sql_session.h). A backend is a
// session for its engine plus what only it has: how it opens and migrates, why it is busy,
// and any faster path its engine offers (PostgreSQL's one-round-trip dashboard poll).
// Internal to db/.
#include <memory>
#include <stdexcept>

#include "db/sql_session.h"
#include "db/store_backend.h"

namespace fathom::db {

// list_run_states's statement (?1 the sweep), which reads only the index runs_state.
std::string run_states_sql();

class SqlStore : public StoreBackend {
 public:
  explicit SqlStore(std::unique_ptr<SqlSession> session);

  // ---- writes ----
  int64_t create_run(const NewRun& run, double now) override;
  std::vector<int64_t> create_runs(const std::vector<NewTaggedRun>& runs, double now) override;
  int64_t take_run(int64_t run, const std::string& host, const std::string& device,
                   double now) override;
  void mark_running(int64_t run, const std::string& host, const std::string& device, double now,
                    int64_t lease) override;
  void finish_run(int64_t run, const std::string& status, const std::string& error,
                  std::optional<int64_t> diverged_step, double now, Fence fence) override;
  void heartbeat(int64_t run, int64_t updates, double now, Fence fence) override;
  void touch_heartbeat(int64_t run, double now, int64_t lease) override;
  bool cancel_run(int64_t run, const std::string& reason, double now) override;
  bool requeue_run(int64_t run, const std::string& reason, double now,
                   const std::vector<std::string>& from, Fence fence) override;
  void set_final_metric(int64_t run, const std::string& name, double value, Fence fence) override;
  void add_artifacts(int64_t run, const std::vector<Artifact>& artifacts,
                     const std::vector<std::string>& removed, double now, Fence fence) override;
  void set_tag(int64_t run, const std::string& key, const std::string& value, Fence fence) override;
  void write_metrics(int64_t run, const std::vector<MetricRow>& rows, Fence fence) override;
  void delete_metrics_after(int64_t run, int64_t step, Fence fence) override;
  void write_probes(int64_t run, const std::vector<ProbeRow>& rows, Fence fence) override;
  void set_config(int64_t run, const std::string& config_yaml, const std::string& config_json,
                  Fence fence) override;
  void delete_run(int64_t run) override;
  int64_t add_analysis(const NewAnalysis& analysis, double now) override;
  std::optional<RunRecord> claim_next_run(const std::string& sweep, const std::string& host,
                                          const std::string& device, double now,
                                          const std::vector<int64_t>& skip) override;
  void import_run(const RunExport& run) override;
  void import_analysis(const AnalysisRecord& analysis) override;

  // ---- reads ----
  std::vector<Artifact> artifacts(int64_t run) override;
  std::map<std::string, std::string> tags(int64_t run) override;
  std::map<int64_t, std::map<std::string, std::string>> listing_tags(
      const std::vector<int64_t>& runs) override;
  std::map<int64_t, std::string> tagged_runs(const std::string& key) override;
  std::vector<RunRecord> list_run_states_with_metrics() override;
  std::vector<RunRecord> runs_by_id(const std::vector<int64_t>& ids) override;
  std::vector<RunRecord> list_runs(const std::string& sweep_filter,
                                   const std::vector<std::string>& config_contains) override;
  std::vector<RunRecord> list_run_states(const std::string& sweep) override;
  std::vector<RunConfigValues> config_values(
      const std::string& sweep, const std::vector<std::vector<std::string>>& keys) override;
  std::optional<RunRecord> run_by_id(int64_t id) override;
  std::optional<RunRecord> latest_run_named(const std::string& name) override;
  std::vector<MetricPoint> metric_points(int64_t run, const std::string& name,
                                         int64_t after_step) override;
  int64_t last_metric_step(int64_t run, const std::string& name) override;
  std::map<int64_t, MetricPoint> best_points(const std::vector<int64_t>& runs,
                                             const std::string& name, bool higher) override;
  std::vector<std::string> metric_names(int64_t run) override;
  std::vector<MetricRow> metric_rows(int64_t run) override;
  std::vector<std::string> probe_names(int64_t run) override;
  ProbeSeries probe_series(int64_t run, const std::string& probe, int64_t after_step) override;
  std::vector<ProbeRow> probe_rows(int64_t run) override;
  std::vector<AnalysisRecord> list_analyses(std::optional<int64_t> run,
                                            const std::string& kind) override;
  std::optional<AnalysisRecord> get_analysis(int64_t id) override;
  StoreCounts counts() override;
  int64_t last_analysis_id() override;

 protected:
  SqlSession& sql() const { return *session_; }
  // Inside a write transaction: upserts the run's metric rows, the last of a repeated
  // (name, step) winning. A backend may override it with its engine's bulk path.
  virtual void insert_metrics(int64_t run, const std::vector<MetricRow>& rows);

 private:
  std::invalid_argument no_run(int64_t run) const;
  // config_values by the engine's JSON functions: one statement, no config read whole.
  std::vector<RunConfigValues> config_values_in_sql(
      const std::string& sweep, const std::vector<std::vector<std::string>>& keys);
  void require_exists(int64_t run);
  void check_fence(int64_t run, Fence fence);
  // Inside a write: InputError "run N is running; cancel it before <before>".
  void refuse_if_running(int64_t run, const std::string& before);
  void require_changed(int64_t changed, int64_t run, Fence fence);
  void insert_artifact(int64_t run, const Artifact& artifact, double now);
  // Inside a write transaction: the new run's row; returns its id.
  int64_t insert_run(const NewRun& run, double now);
  // Inside a write transaction: each row's layout and point (db/sql_store_probes.cpp).
  void insert_probes(int64_t run, const std::vector<ProbeRow>& rows);
  // The runs a SELECT of the run columns picks ("WHERE ..." and "ORDER BY ..." as given), each
  // with its final metrics; no transaction of its own. `metrics_by_id`: their metrics are read
  // by the picked ids rather than by the condition again, for a condition that scans (LIKE).
  std::vector<RunRecord> select_runs(const std::string& where, const std::vector<SqlValue>& params,
                                     const std::string& order, bool metrics_by_id = false);
  std::optional<RunRecord> select_run_by_id(int64_t id);

  std::unique_ptr<SqlSession> session_;
};

}  // namespace fathom::db
