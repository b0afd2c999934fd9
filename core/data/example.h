#pragma once
// One sentence pair as token ids, each side ending with eos.
#include <cstdint>
#include <vector>

namespace fathom {

// Both sides end with eos: src = encode(source) + eos, tgt = encode(target) + eos.
struct Example {
  std::vector<std::int64_t> src, tgt;
};

// Builds an Example from already encoded ids (appends eos to both sides).
Example make_example(std::vector<std::int64_t> src, std::vector<std::int64_t> tgt);

}  // namespace fathom
