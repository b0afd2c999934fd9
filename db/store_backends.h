#pragma once
// The registry of run-store backends, by URL scheme. A new backend is one file defining its
// factory plus one line in store_backends.cpp, which declares the factory beside its call.
#include <functional>
#include <memory>
#include <string>

#include "db/store_backend.h"
#include "db/store_url.h"

namespace fathom::db {

using BackendFactory =
    std::function<std::unique_ptr<StoreBackend>(const StoreUrl& url, OpenMode mode)>;
// Why the store `connect` names cannot be opened right now without waiting (a file another
// process has locked), asked before opening it; nullopt when it can or the engine never waits.
using BusyBeforeOpen = std::function<std::optional<std::string>(const std::string& connect)>;

struct BackendScheme {
  BackendFactory open;
  BusyBeforeOpen busy_before_open;  // may be empty: never busy before opening
};

// Opens (and, for ReadWrite, creates and migrates) the store `url` names.
std::unique_ptr<StoreBackend> open_backend(const StoreUrl& url, OpenMode mode);
// The backend's answer for `url` before opening it (BusyBeforeOpen).
std::optional<std::string> backend_busy_before_open(const StoreUrl& url);
bool has_store_backend(const std::string& scheme);
std::string known_store_schemes();  // "sqlite://, postgresql://" for messages

}  // namespace fathom::db
