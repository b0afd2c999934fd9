// Store methods for the `analyses` table (schema v2; docs/schema.md).
#include <stdexcept>

#include "db/store.h"

namespace fathom::db {
namespace {

#define FATHOM_ANALYSIS_COLUMNS \
  "id, run_id, kind, checkpoint, params_json, result_json, created_at, elapsed_s"

AnalysisRecord read_analysis(const Statement& st) {
  AnalysisRecord r;
  r.id = st.int64(0);
  r.run_id = st.optional_int64(1);
  r.kind = st.text(2);
  r.checkpoint = st.text(3);
  r.params_json = st.text(4);
  r.result_json = st.text(5);
  r.created_at = st.real_or(6, 0);
  r.elapsed_s = st.real_or(7, 0);
  return r;
}

}  // namespace

int64_t Store::add_analysis(const NewAnalysis& a) {
  if (mode_ == OpenMode::ReadOnly)
    throw std::logic_error(path() + ": add_analysis on a store opened read-only");
  if (a.kind.empty()) throw std::invalid_argument("add_analysis: empty kind");
  Transaction tx(db_);
  Statement st(db_,
               "INSERT INTO analyses (run_id, kind, checkpoint, params_json, result_json,"
               " created_at, elapsed_s) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  st.bind(1, a.run_id).bind(2, a.kind).bind_text_or_null(3, a.checkpoint);
  st.bind(4, a.params_json).bind(5, a.result_json).bind(6, unix_now()).bind(7, a.elapsed_s);
  st.run();
  const int64_t id = db_.last_insert_rowid();
  tx.commit();
  return id;
}

std::vector<AnalysisRecord> Store::list_analyses(std::optional<int64_t> run,
                                                 const std::string& kind) const {
  Statement st(db_, "SELECT " FATHOM_ANALYSIS_COLUMNS " FROM analyses"
                    " WHERE (?1 IS NULL OR run_id = ?1) AND (?2 = '' OR kind = ?2) ORDER BY id");
  st.bind(1, run).bind(2, kind);
  std::vector<AnalysisRecord> out;
  while (st.step()) out.push_back(read_analysis(st));
  return out;
}

std::optional<AnalysisRecord> Store::get_analysis(int64_t id) const {
  Statement st(db_, "SELECT " FATHOM_ANALYSIS_COLUMNS " FROM analyses WHERE id = ?1");
  st.bind(1, id);
  if (!st.step()) return std::nullopt;
  return read_analysis(st);
}

}  // namespace fathom::db
