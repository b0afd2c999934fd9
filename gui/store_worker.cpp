#include "gui/store_worker.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QThread>

#include "gui/store_session.h"

namespace fathom::gui {

StoreWorker::StoreWorker(QObject* parent) : QObject(parent) {
  thread_ = new QThread(this);
  worker_ = new QObject;
  worker_->moveToThread(thread_);
  connect(thread_, &QThread::finished, worker_, &QObject::deleteLater);
  thread_->start();
}

StoreWorker::~StoreWorker() {
  QMetaObject::invokeMethod(
      worker_, [this] { store_.reset(); }, Qt::BlockingQueuedConnection);
  thread_->quit();
  thread_->wait();
}

void StoreWorker::setDatabase(const QString& location) {
  if (location.isEmpty()) {
    QMetaObject::invokeMethod(
        worker_, [this] { store_.reset(); }, Qt::BlockingQueuedConnection);
    return;
  }
  // Queued like the jobs, so it takes effect in order and opens in the worker thread.
  QMetaObject::invokeMethod(worker_, [this, location] {
    store_.reset();
    try {
      store_ = std::make_unique<db::Store>(
          db::Store::open(location.toStdString(), db::OpenMode::ReadOnly));
    } catch (const std::exception& e) {
      const QString message = describe_store_error(e);
      QMetaObject::invokeMethod(
          this, [this, message] { emit failed(message); }, Qt::QueuedConnection);
    }
  });
}

void StoreWorker::request(std::function<Job()> make) {
  waiting_ = std::move(make);
  if (!in_flight_) send();
}

void StoreWorker::send() {
  in_flight_ = true;
  Job job = waiting_();
  waiting_ = nullptr;
  QMetaObject::invokeMethod(worker_, [this, job = std::move(job)] {
    std::function<void()> then;
    QString error;
    try {
      // Locked by another process: the job reads nothing (the window's own check says why).
      const db::Store* store = store_ && !store_->busy_reason() ? store_.get() : nullptr;
      then = job(store);
    } catch (const std::exception& e) {
      error = describe_store_error(e);
    }
    // Back on the UI thread; dropped by Qt if this worker is gone by then.
    QMetaObject::invokeMethod(
        this,
        [this, then = std::move(then), error] {
          if (!error.isEmpty())
            emit failed(error);
          else if (then)
            then();
          if (waiting_)
            send();
          else
            in_flight_ = false;
        },
        Qt::QueuedConnection);
  });
}

void StoreWorker::waitIdle(int timeout_ms) const {
  QElapsedTimer waited;
  waited.start();
  while (in_flight_ && waited.elapsed() < timeout_ms) {
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    QThread::msleep(2);
  }
}

}  // namespace fathom::gui

#include "moc_store_worker.cpp"  // moc output for store_worker.h: compiled in this unit
