#pragma once
// Reads the dashboard's new metric points in a worker thread with its own read-only Store
// (gui/store_worker.h), so a slow or busy store never stalls the window: each poll sends the
// curves' tails there and the points come back by signal, to be merged into the MetricCache on
// the UI thread.
#include <functional>
#include <memory>
#include <vector>

#include <QObject>
#include <QString>

#include "db/records.h"
#include "gui/metric_cache.h"
#include "gui/store_worker.h"

namespace fathom::gui {

class MetricPoller : public QObject {
  Q_OBJECT
 public:
  explicit MetricPoller(QObject* parent = nullptr);

  // The store to read: its location (Store::location(): a file path or URL, which may hold
  // a password, so it is never shown); "" closes the connection before returning. A location
  // takes effect before the next request.
  void setDatabase(const QString& location) { worker_->setDatabase(location); }
  // What to read: called on the UI thread when a read is sent (MetricCache::tails).
  void setTails(std::function<std::vector<CurveTail>()> tails) { tails_ = std::move(tails); }
  // The running runs whose rate to read with the points (MetricUpdate::seconds_per_update):
  // called on the UI thread when a read is sent.
  void setRunning(std::function<std::vector<db::RunRecord>()> running) {
    running_ = std::move(running);
  }
  // Reads the points after each tail in the worker thread; pointsRead() follows. A request
  // made while a read is in flight sends one more read after it, with the tails of then.
  void request();
  bool busy() const { return worker_->busy(); }

 signals:
  void pointsRead(std::shared_ptr<const MetricUpdate> update);
  void failed(const QString& message);

 private:
  StoreWorker* worker_;  // its thread and connection (gui/store_worker.h)
  std::function<std::vector<CurveTail>()> tails_;
  std::function<std::vector<db::RunRecord>()> running_;
};

}  // namespace fathom::gui

Q_DECLARE_METATYPE(std::shared_ptr<const fathom::gui::MetricUpdate>)
