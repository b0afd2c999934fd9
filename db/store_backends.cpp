#include "db/store_backends.h"

#include <map>
#include <stdexcept>

namespace fathom::db {
namespace {

const std::map<std::string, BackendFactory>& factories() {
  static const std::map<std::string, BackendFactory> registered = {
      {"sqlite", open_sqlite_backend},
      {"postgresql", open_postgres_backend},
  };
  return registered;
}

}  // namespace

bool has_store_backend(const std::string& scheme) { return factories().count(scheme) > 0; }

std::string known_store_schemes() {
  std::string out;
  for (const auto& [scheme, factory] : factories())
    out += (out.empty() ? "" : ", ") + scheme + "://";
  return out;
}

std::unique_ptr<StoreBackend> open_backend(const StoreUrl& url, OpenMode mode) {
  auto it = factories().find(url.scheme);
  if (it == factories().end()) throw std::logic_error("no backend for " + url.scheme);
  return it->second(url, mode);
}

}  // namespace fathom::db
