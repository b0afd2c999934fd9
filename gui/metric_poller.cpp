#include "gui/metric_poller.h"

#include <QThread>

#include "gui/store_session.h"

namespace fathom::gui {

MetricPoller::MetricPoller(QObject* parent) : QObject(parent) {
  thread_ = new QThread(this);
  worker_ = new QObject;
  worker_->moveToThread(thread_);
  connect(thread_, &QThread::finished, worker_, &QObject::deleteLater);
  thread_->start();
}

MetricPoller::~MetricPoller() {
  // The connection is closed in its own thread, then the thread stops.
  QMetaObject::invokeMethod(
      worker_, [this] { reader_.reset(); }, Qt::BlockingQueuedConnection);
  thread_->quit();
  thread_->wait();
}

void MetricPoller::setDatabase(const QString& location) {
  if (location.isEmpty()) {
    // Closed before this returns (after a read in flight): the window may be about to open
    // the same store again, which needs every old connection gone (MainWindow::reconnect).
    QMetaObject::invokeMethod(
        worker_, [this] { reader_.reset(); }, Qt::BlockingQueuedConnection);
    return;
  }
  // Queued like the reads, so it takes effect in order and opens in the worker thread.
  QMetaObject::invokeMethod(worker_, [this, location] {
    reader_.reset();
    if (location.isEmpty()) return;
    try {
      reader_ = std::make_unique<MetricTailReader>(location.toStdString());
    } catch (const std::exception& e) {
      const QString message = describe_store_error(e);
      QMetaObject::invokeMethod(
          this, [this, message] { emit failed(message); }, Qt::QueuedConnection);
    }
  });
}

void MetricPoller::request() {
  if (in_flight_)
    again_ = true;
  else
    send();
}

void MetricPoller::send() {
  in_flight_ = true;
  again_ = false;
  std::vector<CurveTail> tails = tails_ ? tails_() : std::vector<CurveTail>{};
  QMetaObject::invokeMethod(worker_, [this, tails = std::move(tails)] {
    std::shared_ptr<const MetricUpdate> update;
    QString error;
    if (!reader_) {
      update = std::make_shared<MetricUpdate>();
    } else {
      try {
        // Locked out (or the server lost): an empty update skips this tick; the window's own
        // probe (StoreSession::readable) says why in the status bar.
        if (reader_->busy_reason())
          update = std::make_shared<MetricUpdate>();
        else
          update = std::make_shared<MetricUpdate>(MetricCache::read(*reader_, tails));
      } catch (const std::exception& e) {
        error = describe_store_error(e);
      }
    }
    // Back on the UI thread; dropped by Qt if the poller is gone by then.
    QMetaObject::invokeMethod(
        this,
        [this, update, error] {
          in_flight_ = false;
          if (update)
            emit pointsRead(update);  // merged before the next read takes its tails
          else
            emit failed(error);
          if (again_) send();
        },
        Qt::QueuedConnection);
  });
}

}  // namespace fathom::gui

#include "moc_metric_poller.cpp"  // moc output for metric_poller.h: compiled in this unit
