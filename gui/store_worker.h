#pragma once
// A view's reads off the UI thread: a worker thread with its own read-only Store (a Store is
// one connection, for one thread), so that a large sweep, a slow server or a store locked by
// another process never stalls the window. One job at a time, latest wins: a request made while
// a job runs waits, and a later one replaces it; a waiting request is made into its job only
// when it is sent, with the view's state of then (what a probe poll has shown by then, the
// choices last made).
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>

#include <QObject>
#include <QString>

#include "db/store.h"
#include "gui/free_elsewhere.h"

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

// A job that runs `read(store)` in the worker thread, then `show(get)` on the UI thread, where
// get() returns what `read` returned or rethrows what it threw: a view says a bad filter, a
// budget no run reached or a lost store exactly as it did when it read on the UI thread. A
// store another process holds locked is thrown as a runtime_error. What `read` returned and
// `show` left is freed in a pool thread (gui/free_elsewhere.h).
template <typename T, typename Read, typename Show>
StoreWorker::Job read_then_show(Read read, Show show) {
  return [read = std::move(read),
          show = std::move(show)](const db::Store* store) -> std::function<void()> {
    auto value = std::make_shared<std::optional<T>>();
    std::exception_ptr thrown;
    try {
      if (!store) throw std::runtime_error("the store is busy (another process holds it)");
      value->emplace(read(*store));
    } catch (...) {
      thrown = std::current_exception();
    }
    return [show, value, thrown]() mutable {
      show([&]() -> T& {
        if (thrown) std::rethrow_exception(thrown);
        return **value;
      });
      free_elsewhere(std::move(value));
    };
  };
}

}  // namespace fathom::gui
