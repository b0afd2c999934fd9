// The run store's probe tables (docs/schema.md "Probes"): per-layer, per-head series recorded
// during training (core/train/probes.h), kept apart from `metrics` so that their volume never
// reaches the dashboard's poll or the runs table. One row per (run, probe, step) holds every
// position's value (db/probe_values.h); the positions' labels are stored once per (run, probe).
#include <algorithm>
#include <map>
#include <sstream>
#include <stdexcept>

#include "db/probe_values.h"
#include "db/sql_store.h"

namespace fathom::db {
namespace {

std::string join_lines(const std::vector<std::string>& labels) {
  std::string out;
  for (const auto& label : labels) {
    if (!out.empty()) out += '\n';
    out += label;
  }
  return out;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  if (text.empty()) return out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

}  // namespace

void SqlStore::write_probes(int64_t run, const std::vector<ProbeRow>& rows, Fence fence) {
  sql().write([&] {
    check_fence(run, fence);
    insert_probes(run, rows);
  });
}

void SqlStore::insert_probes(int64_t run, const std::vector<ProbeRow>& rows) {
  std::vector<std::vector<SqlValue>> layouts, points;
  std::vector<std::string> seen;  // each probe's layout once per call
  for (const ProbeRow& row : rows) {
    if (row.values.size() != row.positions.size())
      throw std::invalid_argument("probe " + row.probe + ": " + std::to_string(row.values.size()) +
                                  " values for " + std::to_string(row.positions.size()) +
                                  " positions");
    if (std::find(seen.begin(), seen.end(), row.probe) == seen.end()) {
      seen.push_back(row.probe);
      layouts.push_back({run, row.probe, join_lines(row.positions)});
    }
    points.push_back({run, row.probe, row.step, encode_probe_values(row.values), row.wall_time});
  }
  sql().execute_for_each(
      "INSERT INTO probe_layouts (run_id, probe, positions) VALUES (?1, ?2, ?3)"
      " ON CONFLICT (run_id, probe) DO UPDATE SET positions = excluded.positions",
      layouts);
  sql().execute_for_each(
      "INSERT INTO probe_points (run_id, probe, step, vals, wall_time)"
      " VALUES (?1, ?2, ?3, ?4, ?5)"
      " ON CONFLICT (run_id, probe, step) DO UPDATE SET vals = excluded.vals,"
      " wall_time = excluded.wall_time",
      points);
}

std::vector<std::string> SqlStore::probe_names(int64_t run) {
  std::vector<std::string> names;
  sql().read_one([&] {
    names.clear();
    sql().query(std::string("SELECT probe FROM probe_layouts WHERE run_id = ?1 ORDER BY probe ") +
                    sql().bytewise_collation(),
                {run}, [&](const SqlRow& row) { names.push_back(row.text(0)); });
  });
  return names;
}

ProbeSeries SqlStore::probe_series(int64_t run, const std::string& probe, int64_t after_step) {
  ProbeSeries series;
  sql().read_snapshot([&] {
    series = ProbeSeries();
    sql().query("SELECT positions FROM probe_layouts WHERE run_id = ?1 AND probe = ?2",
                {run, probe},
                [&](const SqlRow& row) { series.positions = split_lines(row.text(0)); });
    sql().query(
        "SELECT step, vals FROM probe_points WHERE run_id = ?1 AND probe = ?2 AND step > ?3"
        " ORDER BY step",
        {run, probe, after_step}, [&](const SqlRow& row) {
          series.steps.push_back(row.int64(0));
          series.values.push_back(decode_probe_values(row.text(1)));
        });
  });
  return series;
}

std::vector<ProbeRow> SqlStore::probe_rows(int64_t run) {
  std::vector<ProbeRow> rows;
  sql().read_snapshot([&] {
    rows.clear();
    std::map<std::string, std::vector<std::string>> layouts;
    sql().query("SELECT probe, positions FROM probe_layouts WHERE run_id = ?1", {run},
                [&](const SqlRow& row) { layouts[row.text(0)] = split_lines(row.text(1)); });
    sql().query(std::string("SELECT probe, step, vals, wall_time FROM probe_points"
                            " WHERE run_id = ?1 ORDER BY probe ") +
                    sql().bytewise_collation() + ", step",
                {run}, [&](const SqlRow& row) {
                  ProbeRow r;
                  r.probe = row.text(0);
                  r.step = row.int64(1);
                  r.values = decode_probe_values(row.text(2));
                  r.wall_time = row.real(3);
                  r.positions = layouts[r.probe];
                  rows.push_back(std::move(r));
                });
  });
  return rows;
}

}  // namespace fathom::db
