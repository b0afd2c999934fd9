#include "gui/probe_reader.h"

#include <QThread>

#include "gui/store_session.h"

namespace fathom::gui {

ProbeAnswer read_probes(const db::Store& store, const ProbeQuery& query) {
  ProbeAnswer answer;
  answer.generation = query.generation;
  for (int64_t run : query.name_runs) answer.names[run] = store.probe_names(run);
  for (const ProbeRead& read : query.reads)
    answer.series.emplace_back(read, store.probe_series(read.run, read.probe, read.after_step));
  return answer;
}

ProbeReader::ProbeReader(QObject* parent) : QObject(parent) {
  thread_ = new QThread(this);
  worker_ = new QObject;
  worker_->moveToThread(thread_);
  connect(thread_, &QThread::finished, worker_, &QObject::deleteLater);
  thread_->start();
}

ProbeReader::~ProbeReader() {
  QMetaObject::invokeMethod(
      worker_, [this] { store_.reset(); }, Qt::BlockingQueuedConnection);
  thread_->quit();
  thread_->wait();
}

void ProbeReader::setDatabase(const QString& location) {
  if (location.isEmpty()) {
    // Closed before returning: the window may reopen the same store next, which needs every
    // old connection gone first (MainWindow::reconnect).
    QMetaObject::invokeMethod(
        worker_, [this] { store_.reset(); }, Qt::BlockingQueuedConnection);
    return;
  }
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

void ProbeReader::request() {
  if (in_flight_)
    again_ = true;
  else
    send();
}

void ProbeReader::send() {
  in_flight_ = true;
  again_ = false;
  ProbeQuery query = query_ ? query_() : ProbeQuery{};
  QMetaObject::invokeMethod(worker_, [this, query = std::move(query)] {
    std::shared_ptr<const ProbeAnswer> answer;
    QString error;
    try {
      // No store, or one locked by another process: an empty answer skips this tick (the
      // window's own check says why in the status bar).
      if (!store_ || store_->busy_reason())
        answer = std::make_shared<ProbeAnswer>();
      else
        answer = std::make_shared<ProbeAnswer>(read_probes(*store_, query));
    } catch (const std::exception& e) {
      error = describe_store_error(e);
    }
    QMetaObject::invokeMethod(
        this,
        [this, answer, error] {
          in_flight_ = false;
          if (answer)
            emit probesRead(answer);
          else
            emit failed(error);
          if (again_) send();
        },
        Qt::QueuedConnection);
  });
}

}  // namespace fathom::gui

#include "moc_probe_reader.cpp"  // moc output for probe_reader.h: compiled in this unit
