// The run store's metric points: written under a run's fence, read by range scans of the
// (run_id, name, step) key (a part of `SqlStore`, db/sql_store.h).
#include <limits>
#include <string>

#include "db/lease_sql.h"
#include "db/sql_store.h"

namespace fathom::db {
namespace {

MetricPoint read_point(const SqlRow& row, int first_col) {
  return {row.int64(first_col), row.real(first_col + 1), row.real(first_col + 2)};
}

}  // namespace

void SqlStore::write_metrics(int64_t run, const std::vector<MetricRow>& rows, Fence fence) {
  sql().write([&] {
    check_fence(run, fence);
    insert_metrics(run, rows);
  });
}

void SqlStore::delete_metrics_after(int64_t run, int64_t step, Fence fence) {
  sql().write([&] {
    check_fence(run, fence);
    sql().query("DELETE FROM metrics WHERE run_id = ?1 AND step > ?2", {run, step});
    sql().query("DELETE FROM probe_points WHERE run_id = ?1 AND step > ?2", {run, step});
  });
}

std::vector<MetricPoint> SqlStore::metric_points(int64_t run, const std::string& name,
                                                 int64_t after_step) {
  // A range scan of the (run_id, name, step) key: cost is the number of points read.
  std::vector<MetricPoint> out;
  sql().read_one([&] {
    out.clear();
    sql().query(
        "SELECT step, value, wall_time FROM metrics"
        " WHERE run_id = ?1 AND name = ?2 AND step > ?3 ORDER BY step",
        {run, name, after_step}, [&](const SqlRow& row) { out.push_back(read_point(row, 0)); });
  });
  return out;
}

int64_t SqlStore::last_metric_step(int64_t run, const std::string& name) {
  int64_t last = -1;
  sql().read_one([&] {
    sql().query("SELECT max(step) FROM metrics WHERE run_id = ?1 AND name = ?2", {run, name},
                [&](const SqlRow& row) { last = row.is_null(0) ? -1 : row.int64(0); });
  });
  return last;
}

std::map<int64_t, MetricPoint> SqlStore::best_points(const std::vector<int64_t>& runs,
                                                     const std::string& name, bool higher) {
  std::map<int64_t, MetricPoint> out;
  if (runs.empty()) return out;
  // The first point per run in value order, one statement. NaN is left out on both engines:
  // SQLite stores it as NULL, PostgreSQL sorts it above +inf.
  const double inf = std::numeric_limits<double>::infinity();
  const std::string sql_text =
      "SELECT run_id, step, value, wall_time FROM (SELECT run_id, step, value, wall_time,"
      " row_number() OVER (PARTITION BY run_id ORDER BY value " +
      std::string(higher ? "DESC" : "ASC") + ", step) AS k FROM metrics WHERE run_id IN (" +
      id_list(runs) + ") AND name = ?1 AND value > ?2 AND value < ?3) AS ranked WHERE k = 1";
  sql().read_one([&] {
    out.clear();
    sql().query(sql_text, {name, -inf, inf},
                [&](const SqlRow& row) { out[row.int64(0)] = read_point(row, 1); });
  });
  return out;
}

std::vector<std::string> SqlStore::metric_names(int64_t run) {
  std::vector<std::string> out;
  sql().read_one([&] {
    out.clear();
    // A skip-scan over the (run_id, name, step) key: one index seek per distinct name rather
    // than reading every point of the run.
    sql().query(std::string("WITH RECURSIVE n(name) AS ("
                            "  SELECT (SELECT min(name) FROM metrics WHERE run_id = ?1)"
                            "  UNION ALL"
                            "  SELECT (SELECT min(name) FROM metrics WHERE run_id = ?1"
                            "   AND name > n.name) FROM n WHERE n.name IS NOT NULL)"
                            " SELECT name FROM n WHERE name IS NOT NULL ORDER BY name ") +
                    sql().bytewise_collation(),
                {run}, [&](const SqlRow& row) { out.push_back(row.text(0)); });
  });
  return out;
}

std::vector<MetricRow> SqlStore::metric_rows(int64_t run) {
  std::vector<MetricRow> out;
  sql().read_one([&] {
    out.clear();
    sql().query(std::string("SELECT step, name, value, wall_time FROM metrics WHERE run_id = ?1"
                            " ORDER BY name ") +
                    sql().bytewise_collation() + ", step",
                {run}, [&](const SqlRow& row) {
                  out.emplace_back(row.int64(0), row.text(1), row.real(2), row.real(3));
                });
  });
  return out;
}

void SqlStore::insert_metrics(int64_t run, const std::vector<MetricRow>& rows) {
  // One row per execution, in order: a later row of the same (name, step) replaces the earlier.
  std::vector<std::vector<SqlValue>> params;
  params.reserve(rows.size());
  for (const auto& [step, name, value, wall_time] : rows)
    params.push_back({run, step, name, value, wall_time});
  sql().execute_for_each(
      "INSERT INTO metrics (run_id, step, name, value, wall_time) VALUES (?1, ?2, ?3, ?4, ?5)"
      " ON CONFLICT (run_id, name, step) DO UPDATE SET value = excluded.value,"
      " wall_time = excluded.wall_time",
      params);
}

}  // namespace fathom::db
