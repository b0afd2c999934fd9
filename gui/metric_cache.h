#pragma once
// The dashboard's data: the metric curves of the runs on screen, kept in memory and extended
// by polling only the points past the last step seen (metrics rows with step > last). Pure
// C++ over db::Store, no Qt and no SQL, so it is tested without a window.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "db/store.h"

namespace fathom::gui {

// Reads the tail of a curve through its own read-only Store: a separate connection from the
// window's, opened and used in the polling thread (a Store is for one thread at a time).
// Reading never blocks the training workers (SQLite's WAL mode; a server's MVCC).
class MetricTailReader {
 public:
  // `location`: a file path or store URL (Store::location(), which may hold a password).
  // Throws what Store::open throws.
  explicit MetricTailReader(const std::string& location);
  // Reads `store` (not owned: it must outlive the reader), e.g. a StoreWorker's.
  explicit MetricTailReader(const db::Store& store);
  ~MetricTailReader();
  MetricTailReader(MetricTailReader&&) noexcept;
  MetricTailReader& operator=(MetricTailReader&&) noexcept;
  // Points of (run, name) with step > after_step, by step.
  std::vector<db::MetricPoint> after(int64_t run, const std::string& name, int64_t after_step);
  // The last step of (run, name), -1 when it has no points.
  int64_t last_step(int64_t run, const std::string& name);
  // Every curve's end and new points at once (Store::poll_curves: one round trip on a server).
  std::vector<db::CurveReply> poll(const std::vector<db::CurveRequest>& requests);
  // Why a read would wait right now (another process's lock, a lost server), else nullopt:
  // the poller skips that tick instead of sitting in the store's one-minute wait.
  std::optional<std::string> busy_reason() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

using CurveKey = std::pair<int64_t, std::string>;  // (run, metric)

// What a poll asks for one curve: its points after `after_step`, and (when the cache already
// holds some) where the stored curve ends now, to notice a resume that deleted points.
struct CurveTail {
  CurveKey key;
  int64_t after_step = -1;
  bool check_end = false;
};

// What a poll read, for MetricCache::apply. Made in the polling thread, applied in the UI one.
struct MetricUpdate {
  std::vector<CurveTail> asked;
  std::map<CurveKey, std::vector<db::MetricPoint>> fresh;  // by step, all > asked after_step
  std::map<CurveKey, int64_t> stored_end;                  // for curves with check_end
  // The running runs' seconds per update now (db/update_rate.h), where known: their ETAs,
  // read with the points rather than on the UI thread (metric_poller.h).
  std::map<int64_t, double> seconds_per_update;
};

class MetricCache {
 public:
  using Key = CurveKey;

  // The curves to keep; curves no longer wanted are dropped, new ones start empty.
  void track(const std::vector<int64_t>& runs, const std::vector<std::string>& metrics);
  // Appends every tracked curve's new points; returns how many arrived. A curve whose
  // stored end moved back (a run resumed from a checkpoint deletes the points after it)
  // drops its cached points past that end first.
  size_t poll(MetricTailReader& reader) { return apply(read(reader, tails())); }
  // poll() in two halves, so the reading can run in another thread (metric_poller.h):
  // what to ask for, the read itself (touches only the reader), and the merge.
  std::vector<CurveTail> tails() const;
  static MetricUpdate read(MetricTailReader& reader, const std::vector<CurveTail>& tails);
  // Merges an update read from an earlier tails(); curves untracked or changed since are
  // skipped (the next poll asks again). Returns how many points were appended.
  size_t apply(const MetricUpdate& update);
  void clear() { series_.clear(); }
  // Drops a run's cached points, e.g. when it starts again from a checkpoint.
  void forget(int64_t run);

  const std::vector<db::MetricPoint>& series(int64_t run, const std::string& metric) const;
  int64_t last_step(int64_t run, const std::string& metric) const;
  const std::vector<int64_t>& runs() const { return runs_; }
  const std::vector<std::string>& metrics() const { return metrics_; }

 private:
  std::vector<int64_t> runs_;
  std::vector<std::string> metrics_;
  std::map<Key, std::vector<db::MetricPoint>> series_;
};

}  // namespace fathom::gui
