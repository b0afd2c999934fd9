#include "gui/store_session.h"

#include "base/util/error.h"
#include "db/outdated_store.h"
#include "db/store_url.h"

namespace fathom::gui {

QString describe_store_error(const std::exception& e) {
  // The store names itself redacted already; redact_url again in case a driver's message
  // quotes a connection string.
  auto shown = [](const std::string& text) { return QString::fromStdString(db::redact_url(text)); };
  if (const auto* input = dynamic_cast<const InputError*>(&e)) {
    QString where = shown(input->file());
    if (input->line() > 0) where += QStringLiteral(":%1").arg(input->line());
    return QStringLiteral("Cannot open the run store %1:\n%2").arg(where, shown(input->message()));
  }
  return QStringLiteral("Cannot read the run store:\n%1").arg(shown(e.what()));
}

std::unique_ptr<StoreSession> StoreSession::open(const QString& location, QString* error,
                                                 bool* outdated) {
  if (outdated) *outdated = false;
  const std::string where = location.toStdString();
  // Store::open waits up to a minute on another process's lock, which would freeze the
  // window; this asks with a short timeout first.
  if (const auto busy = db::Store::busy_before_open(where)) {
    if (error)
      *error =
          QStringLiteral("Cannot open the run store %1:\n%2")
              .arg(QString::fromStdString(db::redact_url(where)), QString::fromStdString(*busy));
    return nullptr;
  }
  try {
    auto store = db::Store::open(where, db::OpenMode::ReadOnly);
    return std::unique_ptr<StoreSession>(new StoreSession{std::move(store)});
  } catch (const std::exception& e) {
    if (outdated) *outdated = dynamic_cast<const db::OutdatedStoreError*>(&e) != nullptr;
    if (error) *error = describe_store_error(e);
    return nullptr;
  }
}

bool StoreSession::create_or_upgrade(const QString& location, QString* error) {
  try {
    db::Store::open(location.toStdString(), db::OpenMode::ReadWrite);  // creates or migrates
    return true;
  } catch (const std::exception& e) {
    if (error) *error = describe_store_error(e);
    return false;
  }
}

bool StoreSession::readable(QString* why) {
  std::optional<std::string> busy;
  try {
    busy = store.busy_reason();
  } catch (const std::exception& e) {  // a probe that fails says why rather than escaping
    busy = e.what();
  }
  if (!busy) return true;
  if (why) *why = QStringLiteral("run store busy (%1); waiting").arg(QString::fromStdString(*busy));
  return false;
}

}  // namespace fathom::gui
