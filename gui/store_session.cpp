#include "gui/store_session.h"

#include <sqlite3.h>

#include <QFileInfo>

#include "core/util/error.h"

namespace fathom::gui {
namespace {

// True when another process holds a lock that keeps readers out (an exclusive lock, e.g. a
// tool's long write transaction outside WAL mode). Store waits up to a minute on a lock,
// which would freeze the window; this asks with a short timeout first.
bool locked_by_another_process(const QString& path) {
  if (!QFileInfo(path).isFile()) return false;  // Store::open explains a missing path
  sqlite3* db = nullptr;
  bool locked = false;
  if (sqlite3_open_v2(path.toUtf8().constData(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(db, 500);
    const int rc = sqlite3_exec(db, "PRAGMA schema_version", nullptr, nullptr, nullptr);
    locked = rc == SQLITE_BUSY || rc == SQLITE_LOCKED;
  }
  sqlite3_close(db);
  return locked;
}

}  // namespace

QString describe_store_error(const std::exception& e) {
  if (const auto* input = dynamic_cast<const InputError*>(&e)) {
    QString where = QString::fromStdString(input->file());
    if (input->line() > 0) where += QStringLiteral(":%1").arg(input->line());
    return QStringLiteral("Cannot open the run store %1:\n%2")
        .arg(where, QString::fromStdString(input->message()));
  }
  return QStringLiteral("Cannot read the run store:\n%1").arg(QString::fromUtf8(e.what()));
}

std::unique_ptr<StoreSession> StoreSession::open(const QString& path, QString* error) {
  if (locked_by_another_process(path)) {
    if (error)
      *error = QStringLiteral("Cannot open the run store %1:\nit is locked by another process "
                              "(a write transaction outside WAL mode?); try again when it ends")
                   .arg(path);
    return nullptr;
  }
  try {
    auto store = db::Store::open(path.toStdString(), db::OpenMode::ReadOnly);
    return std::unique_ptr<StoreSession>(new StoreSession{std::move(store)});
  } catch (const std::exception& e) {
    if (error) *error = describe_store_error(e);
    return nullptr;
  }
}

bool StoreSession::readable(QString* why) {
  if (!locked_by_another_process(QString::fromStdString(store.path()))) return true;
  if (why) *why = QStringLiteral("run store locked by another process; waiting");
  return false;
}

}  // namespace fathom::gui
