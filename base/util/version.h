#pragma once
// The git revision this binary was built from (recorded with every run).

namespace fathom {

const char* git_revision();  // short hash, "unknown" outside a git checkout

}  // namespace fathom
