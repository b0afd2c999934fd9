#include "db/outdated_store.h"

namespace fathom::db {

OutdatedStoreError::OutdatedStoreError(const std::string& shown, int version, int latest)
    : InputError(shown, 0, "",
                 "run store has schema version " + std::to_string(version) +
                     ", older than this build's " + std::to_string(latest) +
                     "; `fathom db upgrade` brings it to this build's schema, as any command "
                     "that writes to it would (builds older than this one cannot open it then)"),
      version_(version),
      latest_(latest) {}

}  // namespace fathom::db
