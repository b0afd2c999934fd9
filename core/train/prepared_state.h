#pragma once
// The trainer's side of a data-dependent initialization (core/model/registry.h): what the
// model reads from the store and where what it prepared is kept. The model never sees the store.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "core/model/registry.h"
#include "db/store.h"

namespace fathom {

// InitContext::stored_tag over a store: a run's tag, nullopt when the run or tag is absent.
std::function<std::optional<std::string>(int64_t, const std::string&)> stored_tag_reader(
    const db::Store& store);

// Tags to the store; each file written into `artifacts_dir` (created if needed) and recorded
// as an artifact of its kind. With an empty `artifacts_dir` files are not written.
void keep_prepared_state(db::Store& store, int64_t run, const std::string& artifacts_dir,
                         const PreparedState& state);

}  // namespace fathom
