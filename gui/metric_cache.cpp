#include "gui/metric_cache.h"

#include <sqlite3.h>

#include "db/sqlite_handle.h"

namespace fathom::gui {

struct MetricTailReader::Impl {
  explicit Impl(const std::string& path) : db(path, SQLITE_OPEN_READONLY) {
    db.exec("PRAGMA busy_timeout = 2000");  // never freeze the window for a minute
  }
  db::Connection db;
};

MetricTailReader::MetricTailReader(const std::string& db_path)
    : impl_(std::make_unique<Impl>(db_path)) {}
MetricTailReader::~MetricTailReader() = default;
MetricTailReader::MetricTailReader(MetricTailReader&&) noexcept = default;
MetricTailReader& MetricTailReader::operator=(MetricTailReader&&) noexcept = default;

std::vector<db::MetricPoint> MetricTailReader::after(int64_t run, const std::string& name,
                                                     int64_t after_step) {
  // A range scan of the (run_id, name, step) primary key: cost is the number of new points.
  db::Statement st(impl_->db,
                   "SELECT step, value, wall_time FROM metrics"
                   " WHERE run_id = ?1 AND name = ?2 AND step > ?3 ORDER BY step");
  st.bind(1, run).bind(2, name).bind(3, after_step);
  std::vector<db::MetricPoint> out;
  while (st.step()) out.push_back({st.int64(0), st.real(1), st.real(2)});
  return out;
}

int64_t MetricTailReader::last_step(int64_t run, const std::string& name) {
  db::Statement st(impl_->db, "SELECT max(step) FROM metrics WHERE run_id = ?1 AND name = ?2");
  st.bind(1, run).bind(2, name);
  return st.step() && !st.is_null(0) ? st.int64(0) : -1;
}

void MetricCache::forget(int64_t run) {
  for (auto it = series_.begin(); it != series_.end();)
    it = it->first.first == run ? series_.erase(it) : std::next(it);
}

void MetricCache::track(const std::vector<int64_t>& runs, const std::vector<std::string>& metrics) {
  runs_ = runs;
  metrics_ = metrics;
  const std::set<int64_t> run_set(runs.begin(), runs.end());
  const std::set<std::string> metric_set(metrics.begin(), metrics.end());
  for (auto it = series_.begin(); it != series_.end();) {
    const bool keep = run_set.count(it->first.first) && metric_set.count(it->first.second);
    it = keep ? std::next(it) : series_.erase(it);
  }
}

size_t MetricCache::poll(MetricTailReader& reader) {
  size_t added = 0;
  for (int64_t run : runs_) {
    for (const auto& metric : metrics_) {
      auto& points = series_[{run, metric}];
      if (!points.empty()) {
        const int64_t stored = reader.last_step(run, metric);  // one index seek
        while (!points.empty() && points.back().step > stored) points.pop_back();
      }
      const int64_t last = points.empty() ? -1 : points.back().step;
      auto fresh = reader.after(run, metric, last);
      added += fresh.size();
      points.insert(points.end(), fresh.begin(), fresh.end());
    }
  }
  return added;
}

const std::vector<db::MetricPoint>& MetricCache::series(int64_t run,
                                                         const std::string& metric) const {
  static const std::vector<db::MetricPoint> empty;
  auto it = series_.find({run, metric});
  return it == series_.end() ? empty : it->second;
}

int64_t MetricCache::last_step(int64_t run, const std::string& metric) const {
  const auto& points = series(run, metric);
  return points.empty() ? -1 : points.back().step;
}

}  // namespace fathom::gui
