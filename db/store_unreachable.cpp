#include "db/store_unreachable.h"

#include <cstdlib>

namespace fathom::db {

double store_retry_seconds() {
  if (const char* env = std::getenv("FATHOM_DB_RETRY_SECONDS"); env && *env) {
    char* end = nullptr;
    const double v = std::strtod(env, &end);
    if (end && *end == '\0' && v >= 0) return v;
  }
  return 120.0;
}

}  // namespace fathom::db
