#include "core/data/example.h"

#include <utility>

#include "core/data/vocab.h"

namespace fathom {

Example make_example(std::vector<std::int64_t> src, std::vector<std::int64_t> tgt) {
  src.push_back(kEosId);
  tgt.push_back(kEosId);
  return Example{std::move(src), std::move(tgt)};
}

}  // namespace fathom
