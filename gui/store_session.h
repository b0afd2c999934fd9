#pragma once
// An open run store for the window: one read-only Store for the UI thread (the dashboard's
// metric polling has its own connection in its own thread, metric_poller.h). Opening
// turns every failure (missing, locked, corrupt, foreign or newer-schema file) into a message
// for the user instead of an exception escaping into Qt's event loop.
#include <memory>

#include <QString>

#include "db/store.h"

namespace fathom::gui {

struct StoreSession {
  db::Store store;

  // nullptr and *error set when the file cannot be used as a run store.
  static std::unique_ptr<StoreSession> open(const QString& path, QString* error);
  // False (with *why) while another process locks readers out; polls skip that tick instead
  // of freezing the window on the store's one-minute busy wait.
  bool readable(QString* why);
};

// A one-paragraph message for an exception from the store (InputError names file and field).
QString describe_store_error(const std::exception& e);

}  // namespace fathom::gui
