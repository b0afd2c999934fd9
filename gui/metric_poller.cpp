#include "gui/metric_poller.h"

#include "db/update_rate.h"

namespace fathom::gui {

MetricPoller::MetricPoller(QObject* parent) : QObject(parent), worker_(new StoreWorker(this)) {
  connect(worker_, &StoreWorker::failed, this, &MetricPoller::failed);
}

void MetricPoller::request() {
  // The tails are taken when the read is sent: after the update in flight is merged, a read
  // asks only for the points after it.
  worker_->request([this]() -> StoreWorker::Job {
    std::vector<CurveTail> tails = tails_ ? tails_() : std::vector<CurveTail>{};
    std::vector<db::RunRecord> running = running_ ? running_() : std::vector<db::RunRecord>{};
    return [this, tails = std::move(tails),
            running = std::move(running)](const db::Store* store) -> std::function<void()> {
      // No store, or one locked by another process (or a lost server): an empty update skips
      // this tick; the window's own probe (StoreSession::readable) says why in the status bar.
      auto update = std::make_shared<MetricUpdate>();
      if (store) {
        MetricTailReader reader(*store);
        *update = MetricCache::read(reader, tails);
        for (const db::RunRecord& run : running)
          if (const auto rate = db::recent_seconds_per_update(*store, run))
            update->seconds_per_update[run.id] = *rate;
      }
      // Merged before the next read.
      return
          [this, update = std::shared_ptr<const MetricUpdate>(update)] { emit pointsRead(update); };
    };
  });
}

}  // namespace fathom::gui

#include "moc_metric_poller.cpp"  // moc output for metric_poller.h: compiled in this unit
