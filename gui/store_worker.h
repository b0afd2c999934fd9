#pragma once
// A view's reads off the UI thread: a worker thread with its own read-only Store (a Store is
// one connection, for one thread), so that a large sweep, a slow server or a store locked by
// another process never stalls the window. One job at a time, latest wins: a request made while
// a job runs waits, and a later one replaces it; a waiting request is made into its job only
// when it is sent, with the view's state of then (what a probe poll has shown by then, the
// choices last made).
#include <functional>
#include <memory>

#include <QObject>
#include <QString>

#include "db/store.h"

class QThread;

namespace fathom::gui {

class StoreWorker : public QObject {
  Q_OBJECT
 public:
  // Runs in the worker thread with its store (null while none is open, or while another
  // process holds it locked: Store::busy_reason); returns what to do with the result on the UI
  // thread (null for nothing). An exception it lets out becomes failed(), described as a store
  // error.
  using Job = std::function<std::function<void()>(const db::Store* store)>;

  explicit StoreWorker(QObject* parent = nullptr);
  ~StoreWorker() override;  // closes the connection in its thread, then stops the thread

  // The store to read (Store::location(); it may hold a password: never shown). "" closes the
  // connection before returning: the window may reopen the same store next, which needs every
  // old connection gone first (MainWindow::reconnect).
  void setDatabase(const QString& location);
  // `make` is called on the UI thread when its job is sent: now, or when the job running ends
  // (unless another request replaced it meanwhile).
  void request(std::function<Job()> make);
  // A job running or waiting.
  bool busy() const { return in_flight_; }
  // Returns once no job runs or waits, processing events meanwhile (their results drawn), or
  // after `timeout_ms` (tests, screenshots, a view's choose()).
  void waitIdle(int timeout_ms = 10000) const;

 signals:
  void failed(const QString& message);

 private:
  void send();

  QThread* thread_;
  QObject* worker_;                   // lives in thread_
  std::unique_ptr<db::Store> store_;  // opened, used and closed only in thread_
  bool in_flight_ = false;
  std::function<Job()> waiting_;  // the next request, made into a job when sent
};

}  // namespace fathom::gui
