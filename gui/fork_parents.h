#pragma once
// The runs the dashboard draws beside forks (db/fork_tags.h) it shows: their parents, while the
// store holds them and they are not shown already -- a fork sweep's rescues are judged against
// the parent's curve past the fork point, which no fork carries. Qt-free: tested without a
// window.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "db/records.h"

namespace fathom::gui {

// At most this many parents are drawn (the first forks' ones): each is one more curve.
constexpr size_t kParentsDrawn = 3;

// The parents of the forks among `shown` that are not themselves in `shown`, in the order of
// the first fork of each; `tags`: each shown run's tags.
std::vector<int64_t> fork_parents_to_draw(
    const std::vector<db::RunRecord>& shown,
    const std::map<int64_t, std::map<std::string, std::string>>& tags);

}  // namespace fathom::gui
