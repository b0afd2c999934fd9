#include "db/store_backends.h"

#include <stdexcept>

#include "base/util/registry.h"

namespace fathom::db {

// The factories, one file each, and what a backend says before it opens.
std::unique_ptr<StoreBackend> open_sqlite_backend(const StoreUrl& url, OpenMode mode);
std::unique_ptr<StoreBackend> open_postgres_backend(const StoreUrl& url, OpenMode mode);
std::optional<std::string> sqlite_file_busy_reason(const std::string& path);  // sqlite_store.cpp

namespace {

// By URL scheme. A new backend: its factory's file plus one line here.
const Registry<BackendScheme>& schemes() {
  static const Registry<BackendScheme> registered = [] {
    Registry<BackendScheme> r("run store scheme");
    r.add("sqlite", {open_sqlite_backend, sqlite_file_busy_reason});
    r.add("postgresql", {open_postgres_backend, nullptr});
    return r;
  }();
  return registered;
}

}  // namespace

bool has_store_backend(const std::string& scheme) { return schemes().contains(scheme); }

std::string known_store_schemes() {
  std::string out;
  for (const auto& [scheme, backend] : schemes()) out += (out.empty() ? "" : ", ") + scheme + "://";
  return out;
}

std::unique_ptr<StoreBackend> open_backend(const StoreUrl& url, OpenMode mode) {
  const BackendScheme* backend = schemes().find(url.scheme);
  if (!backend) throw std::logic_error("no backend for " + url.scheme);
  return backend->open(url, mode);
}

std::optional<std::string> backend_busy_before_open(const StoreUrl& url) {
  const BackendScheme* backend = schemes().find(url.scheme);
  if (!backend || !backend->busy_before_open) return std::nullopt;
  return backend->busy_before_open(url.connect);
}

}  // namespace fathom::db
