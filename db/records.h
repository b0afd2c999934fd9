#pragma once
// The rows of the run store, as every backend reads and writes them (schema: docs/schema.md).
// Times are unix seconds.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>
#include "base/util/shared_text.h"
#include "db/run_status.h"

namespace fathom::db {

// Seconds since the Unix epoch, with sub-second precision: the unit of every time column.
double unix_now();

enum class OpenMode { ReadWrite, ReadOnly };

struct NewRun {
  std::string name, sweep, config_json, config_yaml, host, device, git_rev;
  std::string status = status::kQueued;
};

// A run to record with its tags (Store::create_runs: a sweep's runs in one transaction).
struct NewTaggedRun {
  NewRun run;
  std::map<std::string, std::string> tags;
};

struct RunRecord {
  int64_t id = 0;
  std::string name, sweep;
  // Shared by the record's copies (every view keeps the runs it shows).
  SharedText config_json, config_yaml;
  std::string status, error, host, device, git_rev;
  std::optional<int64_t> diverged_step;
  int64_t updates = 0;
  int64_t lease = 0;  // generation of the current claim (db/lease.h); 0: never claimed
  // 0 where the event has not happened (e.g. started_at of a queued run).
  double created_at = 0, started_at = 0, finished_at = 0, heartbeat_at = 0;
  std::map<std::string, double> final_metrics;  // NaN where stored as NULL
};

struct MetricPoint {
  int64_t step;
  double value;  // NaN where stored as NULL
  double wall_time;
  // A NaN value equals a NaN value here, so a cache comparing points sees nothing changed.
  bool operator==(const MetricPoint& o) const {
    return step == o.step && wall_time == o.wall_time &&
           (value == o.value || (value != value && o.value != o.value));
  }
  bool operator!=(const MetricPoint& o) const { return !(*this == o); }
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

// One probe's values at one update (core/train/probes.h; docs/schema.md "Probes"): `values`
// in the order of `positions`, the labels of the run's layout for that probe.
struct ProbeRow {
  int64_t step = 0;
  std::string probe;                   // e.g. "attn.max_logit"
  std::vector<std::string> positions;  // e.g. "enc.0.self_attn.h3"
  std::vector<float> values;
  double wall_time = 0;
};

// One probe of one run over training: values[i][j] at steps[i] and positions[j].
struct ProbeSeries {
  std::vector<std::string> positions;
  std::vector<int64_t> steps;
  std::vector<std::vector<float>> values;
};

// Everything stored about one run, ids kept: what `fathom db copy` moves between stores.
struct RunExport {
  RunRecord run;  // final_metrics included
  std::map<std::string, std::string> tags;
  std::vector<Artifact> artifacts;
  std::vector<MetricRow> metrics;
  std::vector<ProbeRow> probes;  // by (probe, step)
};

// One curve of a dashboard poll: the points of (run, name) after `after_step`.
struct CurveRequest {
  int64_t run = 0;
  std::string name;
  int64_t after_step = -1;
};
struct CurveReply {
  int64_t last_step = -1;           // where the stored curve ends now; -1: no points
  std::vector<MetricPoint> points;  // step > after_step, by step
};

// Values read from one run's stored config (Store::config_values), in the order asked.
struct RunConfigValues {
  int64_t run = 0;
  std::vector<std::optional<std::string>> values;  // nullopt: the key is not in the config
};

// Row counts per table, to check a copy.
struct StoreCounts {
  int64_t runs = 0, metrics = 0, final_metrics = 0, tags = 0, artifacts = 0, analyses = 0;
  int64_t probe_points = 0;
  bool operator==(const StoreCounts& o) const {
    return runs == o.runs && metrics == o.metrics && final_metrics == o.final_metrics &&
           tags == o.tags && artifacts == o.artifacts && analyses == o.analyses &&
           probe_points == o.probe_points;
  }
};

}  // namespace fathom::db
