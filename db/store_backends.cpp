#include "db/store_backends.h"

#include <stdexcept>

#include "base/util/registry.h"

namespace fathom::db {
namespace {

// By URL scheme. A new backend: its factory's file plus one line here.
const Registry<BackendFactory>& factories() {
  static const Registry<BackendFactory> registered = [] {
    Registry<BackendFactory> r("run store scheme");
    r.add("sqlite", open_sqlite_backend);
    r.add("postgresql", open_postgres_backend);
    return r;
  }();
  return registered;
}

}  // namespace

bool has_store_backend(const std::string& scheme) { return factories().contains(scheme); }

std::string known_store_schemes() {
  std::string out;
  for (const auto& [scheme, factory] : factories())
    out += (out.empty() ? "" : ", ") + scheme + "://";
  return out;
}

std::unique_ptr<StoreBackend> open_backend(const StoreUrl& url, OpenMode mode) {
  const BackendFactory* factory = factories().find(url.scheme);
  if (!factory) throw std::logic_error("no backend for " + url.scheme);
  return (*factory)(url, mode);
}

}  // namespace fathom::db
