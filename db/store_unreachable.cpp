#include "db/store_unreachable.h"

#include <cstdlib>
#include <string>

namespace fathom::db {

double store_retry_seconds() {
  if (const char* env = std::getenv("FATHOM_DB_RETRY_SECONDS"); env && *env) {
    char* end = nullptr;
    const double v = std::strtod(env, &end);
    if (end && *end == '\0' && v >= 0) return v;
  }
  return 120.0;
}

void default_store_wait_at_least(double seconds) {
  const char* set = std::getenv("FATHOM_DB_RETRY_SECONDS");
  if ((set && *set) || store_retry_seconds() >= seconds) return;
  setenv("FATHOM_DB_RETRY_SECONDS", std::to_string(seconds).c_str(), 1);
}

}  // namespace fathom::db
