#include "gui/metric_cache.h"

#include <algorithm>
#include <optional>

namespace fathom::gui {

struct MetricTailReader::Impl {
  explicit Impl(const std::string& location)
      : owned(db::Store::open(location, db::OpenMode::ReadOnly)), store(*owned) {}
  explicit Impl(const db::Store& other) : store(other) {}
  std::optional<db::Store> owned;
  const db::Store& store;
};

MetricTailReader::MetricTailReader(const std::string& location)
    : impl_(std::make_unique<Impl>(location)) {}
MetricTailReader::MetricTailReader(const db::Store& store) : impl_(std::make_unique<Impl>(store)) {}
MetricTailReader::~MetricTailReader() = default;
MetricTailReader::MetricTailReader(MetricTailReader&&) noexcept = default;
MetricTailReader& MetricTailReader::operator=(MetricTailReader&&) noexcept = default;

std::vector<db::MetricPoint> MetricTailReader::after(int64_t run, const std::string& name,
                                                     int64_t after_step) {
  // An index range scan: the cost is the number of new points.
  return impl_->store.metric_points_after(run, name, after_step);
}

int64_t MetricTailReader::last_step(int64_t run, const std::string& name) {
  return impl_->store.last_metric_step(run, name);
}

std::vector<db::CurveReply> MetricTailReader::poll(const std::vector<db::CurveRequest>& requests) {
  return impl_->store.poll_curves(requests);
}

std::optional<std::string> MetricTailReader::busy_reason() const {
  return impl_->store.busy_reason();
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

namespace {

// The step a read started after: the cached end, or the stored end when that moved back.
int64_t read_after(const MetricUpdate& update, const CurveTail& tail) {
  auto end = update.stored_end.find(tail.key);
  return end == update.stored_end.end() ? tail.after_step : std::min(tail.after_step, end->second);
}

}  // namespace

std::vector<CurveTail> MetricCache::tails() const {
  std::vector<CurveTail> out;
  for (int64_t run : runs_) {
    for (const auto& metric : metrics_) {
      const auto it = series_.find({run, metric});
      const bool cached = it != series_.end() && !it->second.empty();
      out.push_back({{run, metric}, cached ? it->second.back().step : -1, cached});
    }
  }
  return out;
}

MetricUpdate MetricCache::read(MetricTailReader& reader, const std::vector<CurveTail>& tails) {
  MetricUpdate update;
  update.asked = tails;
  // One request for the whole screen. Reading after the cached end is the same as reading
  // after min(cached end, stored end): a stored curve has no points past its own end.
  std::vector<db::CurveRequest> requests;
  for (const auto& tail : tails)
    requests.push_back({tail.key.first, tail.key.second, tail.after_step});
  auto replies = reader.poll(requests);
  for (size_t i = 0; i < tails.size(); ++i) {
    const auto& tail = tails[i];
    if (tail.check_end) update.stored_end[tail.key] = replies[i].last_step;
    if (!replies[i].points.empty()) update.fresh[tail.key] = std::move(replies[i].points);
  }
  return update;
}

size_t MetricCache::apply(const MetricUpdate& update) {
  const std::set<int64_t> runs(runs_.begin(), runs_.end());
  const std::set<std::string> metrics(metrics_.begin(), metrics_.end());
  size_t added = 0;
  for (const auto& tail : update.asked) {
    if (!runs.count(tail.key.first) || !metrics.count(tail.key.second)) continue;
    auto& points = series_[tail.key];
    if (auto end = update.stored_end.find(tail.key); end != update.stored_end.end())
      while (!points.empty() && points.back().step > end->second) points.pop_back();
    auto fresh = update.fresh.find(tail.key);
    if (fresh == update.fresh.end()) continue;
    // Points read after a later step than our end would leave a hole (the curve was dropped
    // and re-tracked meanwhile): skip them, the next poll reads from our end.
    const int64_t last = points.empty() ? -1 : points.back().step;
    if (last < read_after(update, tail)) continue;
    for (const auto& p : fresh->second) {
      if (p.step <= (points.empty() ? -1 : points.back().step)) continue;  // a repeated poll
      points.push_back(p);
      ++added;
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
