#pragma once
// Reads the dashboard's new metric points in a worker thread, so a slow or busy store never
// stalls the window. The thread has its own read-only Store (a Store is one connection, for
// one thread); each poll sends the curves' tails there and the points come back
// by signal, to be merged into the MetricCache on the UI thread.
#include <functional>
#include <memory>

#include <QObject>
#include <QString>

#include "gui/metric_cache.h"

class QThread;

namespace fathom::gui {

class MetricPoller : public QObject {
  Q_OBJECT
 public:
  explicit MetricPoller(QObject* parent = nullptr);
  ~MetricPoller() override;  // stops the thread (waits for a read in progress)

  // The store to read: its location (Store::location(): a file path or URL, which may hold
  // a password, so it is never shown); "" closes the connection before returning. A location
  // takes effect before the next request.
  void setDatabase(const QString& location);
  // What to read: called on the UI thread when a read is sent (MetricCache::tails).
  void setTails(std::function<std::vector<CurveTail>()> tails) { tails_ = std::move(tails); }
  // Reads the points after each tail in the worker thread; pointsRead() follows. A request
  // made while a read is in flight sends one more read after it, with the tails of then.
  void request();
  bool busy() const { return in_flight_; }

 signals:
  void pointsRead(std::shared_ptr<const MetricUpdate> update);
  void failed(const QString& message);

 private:
  void send();

  QThread* thread_;
  QObject* worker_;                           // lives in thread_; owns the connection
  std::unique_ptr<MetricTailReader> reader_;  // used only from thread_
  bool in_flight_ = false;
  bool again_ = false;
  std::function<std::vector<CurveTail>()> tails_;
};

}  // namespace fathom::gui

Q_DECLARE_METATYPE(std::shared_ptr<const fathom::gui::MetricUpdate>)
