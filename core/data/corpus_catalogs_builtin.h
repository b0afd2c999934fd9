#pragma once
// The text of every configs/corpora/*.yaml, by file stem: generated into the build tree by
// core/CMakeLists.txt, so the binary carries its catalogs (core/data/corpus_catalog.h).
#include <string>
#include <utility>
#include <vector>

namespace fathom {

const std::vector<std::pair<std::string, std::string>>& builtin_corpus_catalogs();

}  // namespace fathom
