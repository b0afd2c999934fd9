#pragma once
// The two kinds of split the batcher reads, seen alike (core/data/batch_plan.cpp plans them,
// core/data/batch.cpp collates them): a TokenPairs as it is, a std::vector<Example> through
// ExampleVectorAccess. Internal to core/data.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/data/example.h"

namespace fathom {

// Lengths with eos, and ids copied out, of a vector of Examples.
struct ExampleVectorAccess {
  const std::vector<Example>& v;
  std::size_t size() const { return v.size(); }
  std::int64_t src_len(std::size_t i) const { return static_cast<std::int64_t>(v[i].src.size()); }
  std::int64_t tgt_len(std::size_t i) const { return static_cast<std::int64_t>(v[i].tgt.size()); }
  void copy_src(std::size_t i, std::int64_t* out) const {
    std::copy(v[i].src.begin(), v[i].src.end(), out);
  }
  void copy_tgt(std::size_t i, std::int64_t* out) const {
    std::copy(v[i].tgt.begin(), v[i].tgt.end(), out);
  }
};

}  // namespace fathom
