#pragma once
// An open run store for the window: one read-only Store for the UI thread (the dashboard's
// metric polling has its own connection in its own thread, metric_poller.h). Opening
// turns every failure (missing, locked, unreachable, corrupt, foreign or newer-schema store)
// into a message for the user instead of an exception escaping into Qt's event loop. Messages
// name the store as Store::path() does: a URL's password is never shown.
#include <memory>

#include <QString>

#include "db/store.h"

namespace fathom::gui {

struct StoreSession {
  db::Store store;

  // `location`: a file path or store URL (db/store_url.h). nullptr and *error set when it
  // cannot be used as a run store; *outdated (when given) then says whether the reason is an
  // older schema, which upgrade() would fix.
  static std::unique_ptr<StoreSession> open(const QString& location, QString* error,
                                            bool* outdated = nullptr);
  // Opens the store for writing and closes it: that creates a missing one and brings an older
  // one to this build's schema (as the CLI's writing commands and `fathom db upgrade` do).
  // False and *error when it cannot.
  static bool create_or_upgrade(const QString& location, QString* error);
  // False (with *why) while another process locks readers out or the server is lost
  // (Store::busy_reason); polls skip that tick instead of freezing the window on the
  // store's one-minute busy wait.
  bool readable(QString* why);
};

// A one-paragraph message for an exception from the store (InputError names file and field).
QString describe_store_error(const std::exception& e);

}  // namespace fathom::gui
