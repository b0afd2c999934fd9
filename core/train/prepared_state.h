#pragma once
// The trainer's side of a data-dependent initialization (core/model/registry.h): what the
// model reads from the store and where what it prepared is kept. The model never sees the store.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "core/model/registry.h"
#include "core/train/run_files.h"
#include "db/store.h"

namespace fathom {

// InitContext::stored_tag over a store: a run's tag, nullopt when the run or tag is absent.
std::function<std::optional<std::string>(int64_t, const std::string&)> stored_tag_reader(
    const db::Store& store);

// Tags to the store; each file written into the run's directory (created if needed) under a
// name of this holder's and recorded as an artifact of its kind -- all as the run's holder
// (db/lease.h). With an empty directory files are not written.
void keep_prepared_state(db::Store& store, RunFiles& files, const PreparedState& state);

}  // namespace fathom
