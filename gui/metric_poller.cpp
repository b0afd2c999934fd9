#include "gui/metric_poller.h"

namespace fathom::gui {

MetricPoller::MetricPoller(QObject* parent) : QObject(parent), worker_(new StoreWorker(this)) {
  connect(worker_, &StoreWorker::failed, this, &MetricPoller::failed);
}

void MetricPoller::request() {
  // The tails are taken when the read is sent: after the update in flight is merged, a read
  // asks only for the points after it.
  worker_->request([this]() -> StoreWorker::Job {
    std::vector<CurveTail> tails = tails_ ? tails_() : std::vector<CurveTail>{};
    return [this, tails = std::move(tails)](const db::Store* store) -> std::function<void()> {
      // No store, or one locked by another process (or a lost server): an empty update skips
      // this tick; the window's own probe (StoreSession::readable) says why in the status bar.
      std::shared_ptr<const MetricUpdate> update;
      if (store) {
        MetricTailReader reader(*store);
        update = std::make_shared<const MetricUpdate>(MetricCache::read(reader, tails));
      } else {
        update = std::make_shared<const MetricUpdate>();
      }
      return [this, update] { emit pointsRead(update); };  // merged before the next read
    };
  });
}

}  // namespace fathom::gui

#include "moc_metric_poller.cpp"  // moc output for metric_poller.h: compiled in this unit
