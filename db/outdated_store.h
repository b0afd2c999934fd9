#pragma once
// A store written by an older Fathom (a lower schema version) opened read-only: the read-only
// paths refuse it rather than change a file they only read. The error carries both versions so
// a caller can offer the upgrade (the desktop app asks), and its message names the command
// that performs it.
#include <string>

#include "base/util/error.h"

namespace fathom::db {

class OutdatedStoreError : public InputError {
 public:
  // `shown`: the store as Store::path() names it (no password).
  OutdatedStoreError(const std::string& shown, int version, int latest);
  int version() const { return version_; }
  int latest() const { return latest_; }

 private:
  int version_, latest_;
};

}  // namespace fathom::db
