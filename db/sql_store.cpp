#include "db/sql_store.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>

#include <nlohmann/json.hpp>

#include "base/util/error.h"
#include "db/lease_sql.h"
#include "db/run_json.h"
#include "db/run_status.h"

namespace fathom::db {
namespace {

constexpr const char* kRunColumns =
    "id, name, sweep, config_json, config_yaml, status, error, host, device, git_rev, "
    "diverged_step, updates, created_at, started_at, finished_at, heartbeat_at, lease";
constexpr const char* kUpsertTag =
    "INSERT INTO run_tags (run_id, key, value) VALUES (?1, ?2, ?3)"
    " ON CONFLICT (run_id, key) DO UPDATE SET value = excluded.value";
// `runs` in ascending id. They come in an index's order -- by status, then id -- so a plain sort
// of the records moved whole ~400-byte records through a heap sort: 14 % of a 100,000-run
// poll. Here (id, position) pairs are sorted and the records permuted in place along the
// permutation's cycles: each moved about once, and no second vector of them.
void sort_by_id(std::vector<RunRecord>& runs) {
  const auto by_id = [](const RunRecord& a, const RunRecord& b) { return a.id < b.id; };
  if (std::is_sorted(runs.begin(), runs.end(), by_id)) return;
  std::vector<std::pair<int64_t, size_t>> order(runs.size());
  for (size_t i = 0; i < runs.size(); ++i) order[i] = {runs[i].id, i};
  std::sort(order.begin(), order.end());
  std::vector<bool> placed(runs.size(), false);
  for (size_t start = 0; start < runs.size(); ++start) {
    if (placed[start]) continue;
    // Position i takes the record at order[i].second; follow that until the cycle closes.
    RunRecord first = std::move(runs[start]);
    size_t at = start;
    while (order[at].second != start) {
      runs[at] = std::move(runs[order[at].second]);
      placed[at] = true;
      at = order[at].second;
    }
    runs[at] = std::move(first);
    placed[at] = true;
  }
}
// What a poll needs, in the columns read_run reads, NULL or '' for the others: all of them in
// the index runs_state, so SQLite never reads the rows with their configs.
constexpr const char* kRunStateColumns =
    "id, name, sweep, '', '', status, NULL, host, device, NULL, "
    "NULL, updates, NULL, NULL, NULL, heartbeat_at, lease";
RunRecord read_run(const SqlRow& row) {
  RunRecord r;
  r.id = row.int64(0);
  r.name = row.text(1);
  r.sweep = row.text(2);
  r.config_json = row.text(3);
  r.config_yaml = row.text(4);
  r.status = row.text(5);
  r.error = row.text(6);
  r.host = row.text(7);
  r.device = row.text(8);
  r.git_rev = row.text(9);
  r.diverged_step = row.optional_int64(10);
  r.updates = row.int64(11);
  r.created_at = row.real_or(12, 0);
  r.started_at = row.real_or(13, 0);
  r.finished_at = row.real_or(14, 0);
  r.heartbeat_at = row.real_or(15, 0);
  r.lease = row.int64(16);
  return r;
}

// A fence as a parameter that may be NULL (an unfenced write): typed, as PostgreSQL cannot
// infer the type of a bare NULL parameter in "? IS NULL".
std::string nullable_lease(int placeholder) {
  return "CAST(?" + std::to_string(placeholder) + " AS BIGINT)";
}

}  // namespace

SqlStore::SqlStore(std::unique_ptr<SqlSession> session) : session_(std::move(session)) {}

// ---- writes ---------------------------------------------------------------------------------

int64_t SqlStore::insert_run(const NewRun& run, double now) {
  int64_t id = 0;
  sql().query(
      "INSERT INTO runs (name, sweep, config_json, config_yaml, status, host, device, git_rev,"
      " created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) RETURNING id",
      {run.name, sql_text_or_null(run.sweep), run.config_json, run.config_yaml, run.status,
       sql_text_or_null(run.host), sql_text_or_null(run.device), sql_text_or_null(run.git_rev),
       now},
      [&](const SqlRow& row) { id = row.int64(0); });
  return id;
}

int64_t SqlStore::create_run(const NewRun& run, double now) {
  int64_t id = 0;
  sql().write([&] { id = insert_run(run, now); });
  return id;
}

std::vector<int64_t> SqlStore::create_runs(const std::vector<NewTaggedRun>& runs, double now) {
  std::vector<int64_t> ids;
  sql().write([&] {
    ids.clear();  // a retried transaction starts again
    std::vector<std::vector<SqlValue>> tags;
    for (const auto& r : runs) {
      ids.push_back(insert_run(r.run, now));
      for (const auto& [key, value] : r.tags) tags.push_back({ids.back(), key, value});
    }
    sql().execute_for_each(kUpsertTag, tags);
  });
  return ids;
}

int64_t SqlStore::take_run(int64_t run, const std::string& host, const std::string& device,
                           double now) {
  int64_t lease = 0;
  sql().write([&] {
    const int64_t taken = sql().query(
        "UPDATE runs SET " + take_run_set("?2", "?3", "?4") + " WHERE id = ?1 RETURNING lease",
        {run, now, sql_text_or_null(host), sql_text_or_null(device)},
        [&](const SqlRow& row) { lease = row.int64(0); });
    if (taken == 0) throw no_run(run);
  });
  return lease;
}

void SqlStore::mark_running(int64_t run, const std::string& host, const std::string& device,
                            double now, int64_t lease) {
  sql().write([&] {
    const int64_t changed =
        sql().query("UPDATE runs SET host = ?2, device = ?3, heartbeat_at = ?4 WHERE id = ?1 AND " +
                        held_by("?5") + " RETURNING id",
                    {run, sql_text_or_null(host), sql_text_or_null(device), now, lease});
    require_changed(changed, run, lease);
  });
}

void SqlStore::finish_run(int64_t run, const std::string& status, const std::string& error,
                          std::optional<int64_t> diverged_step, double now, Fence fence) {
  sql().write([&] {
    const int64_t changed = sql().query(
        "UPDATE runs SET status = ?2, error = ?3, diverged_step = ?4, finished_at = ?5,"
        " heartbeat_at = ?5 WHERE id = ?1 AND " +
            held_by_if_fenced(nullable_lease(6)) + " RETURNING id",
        {run, status, sql_text_or_null(error), sql_int_or_null(diverged_step), now,
         sql_int_or_null(fence)});
    require_changed(changed, run, fence);
  });
}

void SqlStore::heartbeat(int64_t run, int64_t updates, double now, Fence fence) {
  sql().write([&] {
    const int64_t changed =
        sql().query("UPDATE runs SET heartbeat_at = ?2, updates = ?3 WHERE id = ?1 AND " +
                        held_by_if_fenced(nullable_lease(4)) + " RETURNING id",
                    {run, now, updates, sql_int_or_null(fence)});
    require_changed(changed, run, fence);
  });
}

void SqlStore::touch_heartbeat(int64_t run, double now, int64_t lease) {
  sql().write([&] {
    const int64_t changed = sql().query(
        "UPDATE runs SET heartbeat_at = ?2 WHERE id = ?1 AND " + held_by("?3") + " RETURNING id",
        {run, now, lease});
    require_changed(changed, run, lease);
  });
}

bool SqlStore::cancel_run(int64_t run, const std::string& reason, double now) {
  bool cancelled = false;
  sql().write([&] {
    cancelled = sql().query(
                    "UPDATE runs SET status = 'cancelled', error = ?2, finished_at = ?3,"
                    " heartbeat_at = ?3 WHERE id = ?1 AND status IN ('queued', 'running')"
                    " RETURNING id",
                    {run, sql_text_or_null(reason), now}) > 0;
    if (!cancelled) require_exists(run);
  });
  return cancelled;
}

bool SqlStore::requeue_run(int64_t run, const std::string& reason, double now,
                           const std::vector<std::string>& from, Fence fence) {
  bool requeued = false;
  sql().write([&] {
    const SqlValue why = sql_text_or_null(reason);
    const auto params =
        fence ? std::vector<SqlValue>{run, why, now, *fence} : std::vector<SqlValue>{run, why, now};
    requeued = sql().query("UPDATE runs SET " + requeue_set("?2", "?3") + " WHERE id = ?1 AND " +
                               (fence ? held_by("?4") : status_in(from)) + " RETURNING id",
                           params) > 0;
    if (!requeued) fence ? check_fence(run, fence) : require_exists(run);
  });
  return requeued;
}

void SqlStore::set_final_metric(int64_t run, const std::string& name, double value, Fence fence) {
  sql().write([&] {
    check_fence(run, fence);
    sql().query(
        "INSERT INTO final_metrics (run_id, name, value) VALUES (?1, ?2, ?3)"
        " ON CONFLICT (run_id, name) DO UPDATE SET value = excluded.value",
        {run, name, value});
  });
}

void SqlStore::add_artifacts(int64_t run, const std::vector<Artifact>& artifacts,
                             const std::vector<std::string>& removed, double now, Fence fence) {
  sql().write([&] {
    check_fence(run, fence);
    if (!fence && !removed.empty()) refuse_if_running(run, "removing its artifacts");
    for (const auto& a : artifacts) insert_artifact(run, a, now);
    for (const auto& kind : removed) {
      const bool replaced = std::any_of(artifacts.begin(), artifacts.end(),
                                        [&](const Artifact& a) { return a.kind == kind; });
      if (!replaced)
        sql().query("DELETE FROM artifacts WHERE run_id = ?1 AND kind = ?2", {run, kind});
    }
  });
}

void SqlStore::set_tag(int64_t run, const std::string& key, const std::string& value, Fence fence) {
  sql().write([&] {
    check_fence(run, fence);
    sql().query(kUpsertTag, {run, key, value});
  });
}

void SqlStore::set_config(int64_t run, const std::string& config_yaml,
                          const std::string& config_json, Fence fence) {
  sql().write([&] {
    const int64_t changed =
        sql().query("UPDATE runs SET config_yaml = ?2, config_json = ?3 WHERE id = ?1 AND " +
                        held_by_if_fenced(nullable_lease(4)) + " RETURNING id",
                    {run, config_yaml, config_json, sql_int_or_null(fence)});
    require_changed(changed, run, fence);
  });
}

void SqlStore::delete_run(int64_t run) {
  sql().write([&] {
    refuse_if_running(run, "deleting it");
    // Explicit deletes rather than ON DELETE CASCADE alone: correct even on a connection
    // without foreign keys, and the order (children first) never violates a reference.
    for (const char* table : {"metrics", "probe_points", "probe_layouts", "final_metrics",
                              "run_tags", "artifacts", "analyses"})
      sql().query(std::string("DELETE FROM ") + table + " WHERE run_id = ?1", {run});
    sql().query("DELETE FROM runs WHERE id = ?1", {run});
  });
}

std::optional<RunRecord> SqlStore::claim_next_run(const std::string& sweep, const std::string& host,
                                                  const std::string& device, double now,
                                                  const std::vector<int64_t>& skip) {
  std::optional<RunRecord> claimed;
  sql().write([&] {
    claimed.reset();
    // One statement picks and takes the oldest queued run; a server skips rows another
    // claimer holds, so concurrent claimers take different runs and none waits.
    std::optional<int64_t> id;
    sql().query(claim_next_sql(skip, sql().lock_skipping_locked()),
                {sweep, now, sql_text_or_null(host), sql_text_or_null(device)},
                [&](const SqlRow& row) { id = row.int64(0); });
    if (id) claimed = select_run_by_id(*id);  // inside this transaction: what was claimed
  });
  return claimed;
}

void SqlStore::import_run(const RunExport& e) {
  sql().write([&] {
    const RunRecord& r = e.run;
    sql().query(
        "INSERT INTO runs (id, name, sweep, config_json, config_yaml, status, error,"
        " diverged_step, created_at, started_at, finished_at, heartbeat_at, host, device,"
        " git_rev, updates, lease) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12,"
        " ?13, ?14, ?15, ?16, ?17)",
        {r.id, r.name, sql_text_or_null(r.sweep), r.config_json, r.config_yaml, r.status,
         sql_text_or_null(r.error), sql_int_or_null(r.diverged_step), r.created_at,
         sql_time_or_null(r.started_at), sql_time_or_null(r.finished_at),
         sql_time_or_null(r.heartbeat_at), sql_text_or_null(r.host), sql_text_or_null(r.device),
         sql_text_or_null(r.git_rev), r.updates, r.lease});
    for (const auto& [name, value] : r.final_metrics)
      sql().query("INSERT INTO final_metrics (run_id, name, value) VALUES (?1, ?2, ?3)",
                  {r.id, name, value});
    for (const auto& [key, value] : e.tags)
      sql().query("INSERT INTO run_tags (run_id, key, value) VALUES (?1, ?2, ?3)",
                  {r.id, key, value});
    for (const auto& a : e.artifacts) insert_artifact(r.id, a, r.created_at);
    insert_metrics(r.id, e.metrics);
    insert_probes(r.id, e.probes);
    sql().follow_explicit_ids("runs");
  });
}

// ---- reads ----------------------------------------------------------------------------------

std::vector<Artifact> SqlStore::artifacts(int64_t run) {
  std::vector<Artifact> out;
  sql().read_one([&] {
    out.clear();
    sql().query("SELECT kind, path, step FROM artifacts WHERE run_id = ?1 ORDER BY kind", {run},
                [&](const SqlRow& row) {
                  out.push_back({row.text(0), row.text(1), row.optional_int64(2)});
                });
  });
  return out;
}

std::vector<RunRecord> SqlStore::list_runs(const std::string& sweep_filter,
                                           const std::vector<std::string>& config_contains) {
  std::vector<std::string> conditions;
  std::vector<SqlValue> params;
  if (!sweep_filter.empty()) {
    params.push_back(sweep_filter);
    conditions.push_back("sweep = ?1");
  }
  for (const auto& word : config_contains) {  // _ is LIKE's one-character wildcard: escaped
    std::string pattern = "%";
    for (char c : word) pattern += c == '_' ? std::string("\\_") : std::string(1, c);
    params.push_back(pattern + "%");
    conditions.push_back("config_json " + std::string(sql().like_ignoring_case()) + " ?" +
                         std::to_string(params.size()) + " ESCAPE '\\'");
  }
  std::string where;
  for (const auto& c : conditions) where += (where.empty() ? "WHERE " : " AND ") + c;
  std::vector<RunRecord> runs;
  sql().read_snapshot([&] {
    runs = select_runs(where, params, "ORDER BY id", /*metrics_by_id=*/!config_contains.empty());
  });
  return runs;
}

std::string run_states_sql() {
  // In the index's order: read from it alone, with no sort (list_run_states sorts by id).
  return std::string("SELECT ") + kRunStateColumns +
         " FROM runs WHERE sweep = ?1 ORDER BY status, id";
}

std::vector<RunRecord> SqlStore::list_run_states_with_metrics() {
  std::vector<RunRecord> runs;
  std::vector<std::tuple<int64_t, std::string, double>> metrics;
  sql().read_snapshot([&] {
    runs.clear();
    metrics.clear();
    // No ORDER BY id: in the index's order SQLite reads the index alone, not the rows.
    sql().query(std::string("SELECT ") + kRunStateColumns + " FROM runs", {},
                [&](const SqlRow& row) { runs.push_back(read_run(row)); });
    sql().query("SELECT run_id, name, value FROM final_metrics", {}, [&](const SqlRow& row) {
      metrics.emplace_back(row.int64(0), row.text(1), row.real(2));
    });
  });
  sort_by_id(runs);
  for (auto& [id, name, value] : metrics) {
    const auto run = std::lower_bound(runs.begin(), runs.end(), id,
                                      [](const RunRecord& r, int64_t v) { return r.id < v; });
    if (run != runs.end() && run->id == id) run->final_metrics[std::move(name)] = value;
  }
  return runs;
}

std::vector<RunRecord> SqlStore::runs_by_id(const std::vector<int64_t>& ids) {
  std::vector<RunRecord> runs;
  if (ids.empty()) return runs;
  sql().read_snapshot([&] {
    runs = select_runs("WHERE id IN (" + id_list(ids) + ")", {}, "ORDER BY id",
                       /*metrics_by_id=*/true);
  });
  return runs;
}

std::vector<RunRecord> SqlStore::list_run_states(const std::string& sweep) {
  std::vector<RunRecord> runs;
  sql().read_one([&] {
    runs.clear();
    sql().query(run_states_sql(), {sweep},
                [&](const SqlRow& row) { runs.push_back(read_run(row)); });
  });
  sort_by_id(runs);
  return runs;
}

namespace {

// SqlSession::json_text_at's value, read in C++ from a parsed config: a scalar as its text, an
// object or array as JSON text, nothing where absent, null, or the text was not JSON.
std::optional<std::string> config_value_at(const nlohmann::json& config,
                                           const std::vector<std::string>& keys) {
  const nlohmann::json* node = json_at(config, keys);
  if (!node || node->is_discarded() || node->is_null()) return std::nullopt;
  if (node->is_string()) return node->get<std::string>();
  return node->dump();
}

}  // namespace

// Where the engine's JSON cast fails on some run's config (a hand-edited row that is not JSON:
// PostgreSQL rejects the whole statement, SQLite reads NULL), the configs are read and parsed
// here, that run's values null as on SQLite.
std::vector<RunConfigValues> SqlStore::config_values(
    const std::string& sweep, const std::vector<std::vector<std::string>>& keys) {
  try {
    return config_values_in_sql(sweep, keys);
  } catch (const SqlValueError&) {
  }
  std::vector<RunConfigValues> out;
  sql().read_one([&] {
    out.clear();
    sql().query("SELECT id, config_json FROM runs WHERE sweep = ?1 ORDER BY id", {sweep},
                [&](const SqlRow& row) {
                  RunConfigValues& v = out.emplace_back();
                  v.run = row.int64(0);
                  const auto config = nlohmann::json::parse(row.text(1), nullptr,
                                                            /*allow_exceptions=*/false);
                  for (const auto& key : keys) v.values.push_back(config_value_at(config, key));
                });
  });
  return out;
}

std::vector<RunConfigValues> SqlStore::config_values_in_sql(
    const std::string& sweep, const std::vector<std::vector<std::string>>& keys) {
  std::string columns = "id";
  for (const auto& key : keys) columns += ", " + sql().json_text_at("config_json", key);
  std::vector<RunConfigValues> out;
  sql().read_one([&] {
    out.clear();
    sql().query(
        "SELECT " + columns + " FROM runs WHERE sweep = ?1 ORDER BY id", {sweep},
        [&](const SqlRow& row) {
          RunConfigValues& v = out.emplace_back();
          v.run = row.int64(0);
          for (size_t k = 0; k < keys.size(); ++k) {
            const int col = static_cast<int>(k) + 1;
            v.values.push_back(row.is_null(col) ? std::nullopt : std::optional(row.text(col)));
          }
        });
  });
  return out;
}

std::optional<RunRecord> SqlStore::run_by_id(int64_t id) {
  std::optional<RunRecord> found;
  sql().read_snapshot([&] { found = select_run_by_id(id); });
  return found;
}

std::optional<RunRecord> SqlStore::latest_run_named(const std::string& name) {
  std::vector<RunRecord> runs;
  sql().read_snapshot(
      [&] { runs = select_runs("WHERE name = ?1", {name}, "ORDER BY id DESC LIMIT 1"); });
  if (runs.empty()) return std::nullopt;
  return std::move(runs.front());
}

StoreCounts SqlStore::counts() {
  StoreCounts c;
  sql().read_one([&] {
    // One statement: one snapshot on both engines.
    sql().query(
        "SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM metrics),"
        " (SELECT count(*) FROM final_metrics), (SELECT count(*) FROM run_tags),"
        " (SELECT count(*) FROM artifacts), (SELECT count(*) FROM analyses),"
        " (SELECT count(*) FROM probe_points)",
        {}, [&](const SqlRow& row) {
          c = {row.int64(0), row.int64(1), row.int64(2), row.int64(3),
               row.int64(4), row.int64(5), row.int64(6)};
        });
  });
  return c;
}

// ---- helpers --------------------------------------------------------------------------------

std::invalid_argument SqlStore::no_run(int64_t run) const {
  return std::invalid_argument(sql().shown() + ": no run with id " + std::to_string(run));
}

void SqlStore::require_exists(int64_t run) {  // after an UPDATE whose WHERE may skip the row
  if (sql().query("SELECT 1 FROM runs WHERE id = ?1", {run}) == 0) throw no_run(run);
}

// Inside a write transaction: throws LeaseLost unless the run is running under `fence`
// (nothing for an unfenced write). The read holds the row until the transaction ends (SQLite's
// write lock; a server's FOR SHARE): a claim, requeue or end cannot change the run's holder
// between this check and the write.
void SqlStore::check_fence(int64_t run, Fence fence) {
  if (!fence) return;
  std::string status;
  int64_t generation = 0;
  const int64_t found = sql().query(
      std::string("SELECT status, lease FROM runs WHERE id = ?1") + sql().lock_for_share(), {run},
      [&](const SqlRow& row) {
        status = row.text(0);
        generation = row.int64(1);
      });
  if (found == 0) throw no_run(run);
  throw_unless_held(Lease{run, *fence}, status, generation);
}

// After an UPDATE of the run's row whose WHERE held the fence: it touched no row because the
// run is missing or no longer held (which check_fence then throws).
void SqlStore::require_changed(int64_t changed, int64_t run, Fence fence) {
  if (changed > 0) return;
  if (!fence) throw no_run(run);
  check_fence(run, fence);
  throw std::logic_error(sql().shown() + ": run " + std::to_string(run) + " was not updated");
}

// Inside a write: the run's status read under the write's lock, so that a worker cannot
// claim or start the run in between.
void SqlStore::refuse_if_running(int64_t run, const std::string& before) {
  std::string status;
  const int64_t found =
      sql().query(std::string("SELECT status FROM runs WHERE id = ?1") + sql().lock_for_update(),
                  {run}, [&](const SqlRow& row) { status = row.text(0); });
  if (found == 0) throw no_run(run);
  if (status == db::status::kRunning)
    throw InputError(sql().shown(), 0, "",
                     "run " + std::to_string(run) + " is running; cancel it before " + before);
}

void SqlStore::insert_artifact(int64_t run, const Artifact& a, double now) {
  // An upsert rather than a delete and insert keeps the artifact's id stable.
  sql().query(
      "INSERT INTO artifacts (run_id, kind, path, step, created_at) VALUES (?1, ?2, ?3, ?4, ?5)"
      " ON CONFLICT (run_id, kind) DO UPDATE SET path = excluded.path, step = excluded.step,"
      " created_at = excluded.created_at",
      {run, a.kind, a.path, sql_int_or_null(a.step), now});
}

std::vector<RunRecord> SqlStore::select_runs(const std::string& where,
                                             const std::vector<SqlValue>& params,
                                             const std::string& order, bool metrics_by_id) {
  std::vector<RunRecord> runs;
  sql().query(std::string("SELECT ") + kRunColumns + " FROM runs " + where + " " + order, params,
              [&](const SqlRow& row) { runs.push_back(read_run(row)); });
  if (runs.empty()) return runs;
  std::map<int64_t, RunRecord*> by_id;
  for (auto& run : runs) by_id[run.id] = &run;
  auto add_metric = [&](const SqlRow& row) {
    if (auto it = by_id.find(row.int64(0)); it != by_id.end())
      it->second->final_metrics[row.text(1)] = row.real(2);
  };
  if (!metrics_by_id) {  // every picked run's final metrics in one statement, the same condition
    sql().query(
        "SELECT run_id, name, value FROM final_metrics WHERE run_id IN (SELECT id FROM runs " +
            where + " " + order + ")",
        params, add_metric);
    return runs;
  }
  // 500 ids a statement, each found through the primary key: a second scan of 100,000
  // configs' text cost 0.4 s, these 0.03 s for 6,000 runs.
  constexpr size_t kIdsAStatement = 500;
  for (size_t from = 0; from < runs.size(); from += kIdsAStatement) {
    std::vector<SqlValue> ids;
    ids.reserve(kIdsAStatement);
    std::string marks;
    for (size_t i = from; i < std::min(runs.size(), from + kIdsAStatement); ++i) {
      // Made in place: moving a temporary variant here is what GCC 14 took for a read of an
      // uninitialised string (-Wmaybe-uninitialized, a false positive).
      ids.emplace_back(std::in_place_type<int64_t>, runs[i].id);
      marks += (marks.empty() ? "?" : ", ?") + std::to_string(ids.size());
    }
    sql().query("SELECT run_id, name, value FROM final_metrics WHERE run_id IN (" + marks + ")",
                ids, add_metric);
  }
  return runs;
}

std::optional<RunRecord> SqlStore::select_run_by_id(int64_t id) {
  auto runs = select_runs("WHERE id = ?1", {id}, "");
  if (runs.empty()) return std::nullopt;
  return std::move(runs.front());
}

}  // namespace fathom::db
