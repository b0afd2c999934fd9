// The run store's analyses (the `analyses` table of docs/schema.md): the results of `fathom
// analyze`, written and read here for both engines (a part of `SqlStore`, db/sql_store.h).
#include <string>

#include "db/sql_store.h"

namespace fathom::db {
namespace {

constexpr const char* kAnalysisColumns =
    "id, run_id, kind, checkpoint, params_json, result_json, created_at, elapsed_s";

AnalysisRecord read_analysis(const SqlRow& row) {
  AnalysisRecord a;
  a.id = row.int64(0);
  a.run_id = row.optional_int64(1);
  a.kind = row.text(2);
  a.checkpoint = row.text(3);
  a.params_json = row.text(4);
  a.result_json = row.text(5);
  a.created_at = row.real_or(6, 0);
  a.elapsed_s = row.real_or(7, 0);
  return a;
}

}  // namespace

int64_t SqlStore::add_analysis(const NewAnalysis& a, double now) {
  int64_t id = 0;
  sql().write([&] {
    sql().query(
        "INSERT INTO analyses (run_id, kind, checkpoint, params_json, result_json, created_at,"
        " elapsed_s) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) RETURNING id",
        {sql_int_or_null(a.run_id), a.kind, sql_text_or_null(a.checkpoint), a.params_json,
         a.result_json, now, a.elapsed_s},
        [&](const SqlRow& row) { id = row.int64(0); });
    // An analysis is a function of its run's checkpoint and its options: run again, its result
    // replaces the earlier one (a checkpoint_best that moved on made that one stale anyway).
    // Removed after the insert, so the new row's id is above every earlier one (SQLite would
    // reuse a deleted largest id) and the app's last_analysis_id sees it. `run_id = ?` or
    // `IS NULL`, not IS NOT DISTINCT FROM, which PostgreSQL cannot look up in analyses_by_run.
    sql().query(
        std::string("DELETE FROM analyses WHERE ") +
            (a.run_id ? "run_id = ?1" : "run_id IS NULL AND CAST(?1 AS BIGINT) IS NULL") +
            " AND kind = ?2 AND checkpoint IS NOT DISTINCT FROM CAST(?3 AS TEXT)"
            " AND params_json = ?4 AND id < ?5",
        {sql_int_or_null(a.run_id), a.kind, sql_text_or_null(a.checkpoint), a.params_json, id});
  });
  return id;
}

void SqlStore::import_analysis(const AnalysisRecord& a) {
  sql().write([&] {
    sql().query(
        "INSERT INTO analyses (id, run_id, kind, checkpoint, params_json, result_json,"
        " created_at, elapsed_s) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        {a.id, sql_int_or_null(a.run_id), a.kind, sql_text_or_null(a.checkpoint), a.params_json,
         a.result_json, a.created_at, a.elapsed_s});
    sql().follow_explicit_ids("analyses");
  });
}

std::vector<AnalysisRecord> SqlStore::list_analyses(std::optional<int64_t> run,
                                                    const std::string& kind) {
  std::vector<AnalysisRecord> out;
  sql().read_one([&] {
    out.clear();
    sql().query(std::string("SELECT ") + kAnalysisColumns +
                    " FROM analyses WHERE (CAST(?1 AS BIGINT) IS NULL OR run_id = ?1)"
                    " AND (CAST(?2 AS TEXT) = '' OR kind = ?2) ORDER BY id",
                {sql_int_or_null(run), kind},
                [&](const SqlRow& row) { out.push_back(read_analysis(row)); });
  });
  return out;
}

std::optional<AnalysisRecord> SqlStore::get_analysis(int64_t id) {
  std::optional<AnalysisRecord> out;
  sql().read_one([&] {
    out.reset();
    sql().query(std::string("SELECT ") + kAnalysisColumns + " FROM analyses WHERE id = ?1", {id},
                [&](const SqlRow& row) { out = read_analysis(row); });
  });
  return out;
}

int64_t SqlStore::last_analysis_id() {
  int64_t id = 0;
  sql().read_one([&] {
    sql().query("SELECT coalesce(max(id), 0) FROM analyses", {},
                [&](const SqlRow& row) { id = row.int64(0); });
  });
  return id;
}

}  // namespace fathom::db
