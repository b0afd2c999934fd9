// The run store's tag reads (the `run_tags` table of docs/schema.md) for both engines: one
// run's tags, one tag of every run, and what a listing shows of many runs (a part of
// `SqlStore`, db/sql_store.h).
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "db/lease_sql.h"
#include "db/metric_names.h"
#include "db/sql_store.h"

namespace fathom::db {

std::map<std::string, std::string> SqlStore::tags(int64_t run) {
  std::map<std::string, std::string> out;
  sql().read_one([&] {
    out.clear();
    sql().query("SELECT key, value FROM run_tags WHERE run_id = ?1", {run},
                [&](const SqlRow& row) { out[row.text(0)] = row.text(1); });
  });
  return out;
}

std::map<int64_t, std::map<std::string, std::string>> SqlStore::listing_tags(
    const std::vector<int64_t>& runs) {
  std::map<int64_t, std::map<std::string, std::string>> out;
  if (runs.empty()) return out;
  // The ids in the text, as best_points has them: an IN list of 16,000 is parsed in a few ms
  // on both engines. substr, not LIKE: LIKE ignores case in SQLite.
  const std::string sql_text = "SELECT run_id, key, value FROM run_tags WHERE run_id IN (" +
                               id_list(runs) + ") AND substr(key, 1, " +
                               std::to_string(kSamplesTagPrefix.size()) + ") <> ?1";
  sql().read_one([&] {
    out.clear();
    sql().query(sql_text, {kSamplesTagPrefix}, [&](const SqlRow& row) {
      // Rows come in the key's order (run, key) as the engines read them: each lands at the
      // end, with no search. The hints only speed up; rows in any order land right.
      const int64_t run = row.int64(0);
      auto last = out.empty() ? out.end() : std::prev(out.end());
      if (last == out.end() || last->first != run)
        last = out.emplace_hint(out.end(), run, std::map<std::string, std::string>{});
      last->second.insert_or_assign(last->second.end(), row.text(1), row.text(2));
    });
  });
  return out;
}

std::map<int64_t, std::string> SqlStore::tagged_runs(const std::string& key) {
  std::map<int64_t, std::string> out;
  sql().read_one([&] {
    out.clear();
    // One primary-key lookup (run_id, key) per run: SQLite's CROSS JOIN keeps runs the outer
    // loop. Scanning run_tags for the key instead reads every tag, the stored valid samples
    // too -- 4x slower over 10,000 runs with 50 sample tags each (341 MB).
    sql().query(
        "SELECT r.id, t.value FROM runs r CROSS JOIN run_tags t"
        " WHERE t.run_id = r.id AND t.key = ?1",
        {key}, [&](const SqlRow& row) { out[row.int64(0)] = row.text(1); });
  });
  return out;
}

}  // namespace fathom::db
